//! The line `seekclaw chat` prints once its screen is gone: how to come back
//! to the session it ended on (`seekclaw --continue`, `seekclaw --resume ID`),
//! as the terminal UI reports it.

use std::path::Path;

use seekclaw_tui::ChatEnd;

/// The hint for where the chat ended; `None` when it made no session.
/// `workspace`: the folder the user named with `--workspace`, if any.
pub fn hint(end: &ChatEnd, workspace: Option<&Path>) -> Option<String> {
    let id = end.session_id.as_deref()?;
    let flags = match (end.global, workspace) {
        (true, _) => " --global".to_string(),
        (false, Some(dir)) => format!(" --workspace {}", quoted(&dir.display().to_string())),
        (false, None) => String::new(),
    };
    // `--continue` opens the scope's newest session: this one when it sent a turn.
    Some(if end.sent {
        format!(
            "Resume this session with `seekclaw{flags} --continue` or `seekclaw{flags} --resume {id}`."
        )
    } else {
        format!("Resume this session with `seekclaw{flags} --resume {id}`.")
    })
}

/// `text` as one shell word.
fn quoted(text: &str) -> String {
    if text
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@".contains(c))
    {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn end(id: Option<&str>, global: bool, sent: bool) -> ChatEnd {
        ChatEnd {
            session_id: id.map(str::to_string),
            global,
            sent,
        }
    }

    #[test]
    fn the_hint_names_the_scope_and_the_session() {
        assert_eq!(hint(&end(None, true, false), None), None);
        assert_eq!(
            hint(&end(Some("s1"), true, true), None).unwrap(),
            "Resume this session with `seekclaw --global --continue` or `seekclaw --global --resume s1`."
        );
        assert_eq!(
            hint(
                &end(Some("s1"), false, false),
                Some(Path::new("/w/my proj"))
            )
            .unwrap(),
            "Resume this session with `seekclaw --workspace '/w/my proj' --resume s1`."
        );
        assert_eq!(
            hint(&end(Some("s1"), false, true), None).unwrap(),
            "Resume this session with `seekclaw --continue` or `seekclaw --resume s1`."
        );
    }
}
