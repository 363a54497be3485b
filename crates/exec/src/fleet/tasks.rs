//! `seekclaw run --task-file FILE --task-index N`: one task of a task list,
//! as the pods of a Kubernetes Indexed Job pick theirs
//! (`--task-index $JOB_COMPLETION_INDEX`, the list mounted from a ConfigMap).
//!
//! Two formats, told apart by the first non-blank character:
//! - a JSON array of strings (`[` first): for tasks that span lines;
//! - otherwise one task per line: line N+1 is task N (blank lines count, so
//!   the index always matches the line a person reads; a final newline does
//!   not add a task).

use std::path::Path;

/// Why a task could not be taken from the list (the message names the file).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TaskError {
    #[error("cannot read the task file {path}: {error}")]
    Unreadable { path: String, error: String },
    #[error(
        "the task file {path} is not a JSON array of strings (a file starting with `[` is read as JSON): {error}"
    )]
    BadJson { path: String, error: String },
    #[error("the task file {path} holds no tasks")]
    NoTasks { path: String },
    #[error(
        "task index {index} is out of range: the task file {path} holds {count} task(s), indexes 0 to {last}",
        last = count - 1
    )]
    OutOfRange {
        path: String,
        index: usize,
        count: usize,
    },
    #[error("task {index} of {path} ({where_}) is empty")]
    Empty {
        path: String,
        index: usize,
        where_: String,
    },
}

/// Task `index` (0-based) of the list in `path`.
pub fn task_at(path: &Path, index: usize) -> Result<String, TaskError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| TaskError::Unreadable {
        path: shown.clone(),
        error: e.to_string(),
    })?;
    pick(&shown, &text, index)
}

fn pick(path: &str, text: &str, index: usize) -> Result<String, TaskError> {
    let json = text.trim_start().starts_with('[');
    let tasks: Vec<String> = if json {
        serde_json::from_str(text).map_err(|e| TaskError::BadJson {
            path: path.to_string(),
            error: e.to_string(),
        })?
    } else {
        text.lines().map(str::to_string).collect()
    };
    if tasks.is_empty() {
        return Err(TaskError::NoTasks {
            path: path.to_string(),
        });
    }
    let Some(task) = tasks.get(index) else {
        return Err(TaskError::OutOfRange {
            path: path.to_string(),
            index,
            count: tasks.len(),
        });
    };
    let task = task.trim();
    if task.is_empty() {
        let where_ = if json {
            format!("element {index} of the array")
        } else {
            format!("line {}", index + 1)
        };
        return Err(TaskError::Empty {
            path: path.to_string(),
            index,
            where_,
        });
    }
    Ok(task.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_tasks_and_blank_lines_keep_their_index() {
        let text = "fix the build\r\n\nadd a test\n";
        assert_eq!(pick("t", text, 0).unwrap(), "fix the build");
        assert_eq!(pick("t", text, 2).unwrap(), "add a test");
        assert_eq!(
            pick("t", text, 1).unwrap_err().to_string(),
            "task 1 of t (line 2) is empty"
        );
        assert_eq!(
            pick("t", text, 3).unwrap_err().to_string(),
            "task index 3 is out of range: the task file t holds 3 task(s), indexes 0 to 2"
        );
    }

    #[test]
    fn a_json_array_holds_tasks_that_span_lines() {
        let text = "  [\"one\\ntwo\", \" \"]";
        assert_eq!(pick("t", text, 0).unwrap(), "one\ntwo");
        assert!(matches!(pick("t", text, 1), Err(TaskError::Empty { .. })));
        assert!(matches!(
            pick("t", "[1, 2]", 0),
            Err(TaskError::BadJson { .. })
        ));
        assert!(matches!(pick("t", "[]", 0), Err(TaskError::NoTasks { .. })));
        assert!(matches!(pick("t", "", 0), Err(TaskError::NoTasks { .. })));
    }
}
