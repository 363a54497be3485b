//! Finding the daemon's child processes in /proc: the cancel benchmark cancels
//! only once the tool's `sleep` really runs, and checks that it is gone after.

use std::collections::HashMap;

/// Parent pid and state letter from `/proc/<pid>/stat` (the fields after the
/// parenthesised command name, which may itself hold spaces or parentheses).
fn ppid_and_state(stat: &str) -> Option<(u32, char)> {
    let rest = stat.get(stat.rfind(')')? + 1..)?;
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    Some((ppid, state))
}

/// Live (not zombie) processes below `root` whose argv is exactly `argv`.
pub fn descendants_running(root: u32, argv: &[&str]) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut parent = HashMap::new();
    for entry in dir.filter_map(Result::ok) {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        if let Some((ppid, state)) = std::fs::read_to_string(entry.path().join("stat"))
            .ok()
            .and_then(|s| ppid_and_state(&s))
            && state != 'Z'
        {
            parent.insert(pid, ppid);
        }
    }
    let below_root = |mut pid: u32| {
        // Bounded walk: pid reuse could in theory make a cycle.
        for _ in 0..64 {
            match parent.get(&pid) {
                Some(&p) if p == root => return true,
                Some(&p) if p > 1 => pid = p,
                _ => return false,
            }
        }
        false
    };
    let mut found: Vec<u32> = parent
        .keys()
        .copied()
        .filter(|pid| below_root(*pid) && argv_is(*pid, argv))
        .collect();
    found.sort_unstable();
    found
}

fn argv_is(pid: u32, argv: &[&str]) -> bool {
    let Ok(raw) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
        return false;
    };
    let got: Vec<&[u8]> = raw.split(|b| *b == 0).filter(|a| !a.is_empty()).collect();
    got.len() == argv.len() && got.iter().zip(argv).all(|(g, a)| *g == a.as_bytes())
}

/// Whether `pid` still runs (a zombie counts as ended).
pub fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| ppid_and_state(&s))
        .is_some_and(|(_, state)| state != 'Z')
}

/// Ends a leftover process the daemon failed to stop (it is ours: a
/// descendant of the daemon this bench started), by its pid.
pub fn kill(pid: u32) {
    let Ok(pid) = i32::try_from(pid) else {
        return;
    };
    // SAFETY: kill(2) with a specific positive pid and a valid signal number
    // has no memory-safety preconditions.
    unsafe {
        libc::kill(pid, libc::SIGKILL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_after_an_odd_command_name() {
        let stat = "1234 (we ird) (x)) S 99 1234 1234 0 -1";
        assert_eq!(ppid_and_state(stat), Some((99, 'S')));
        assert_eq!(ppid_and_state("garbage"), None);
    }

    #[test]
    fn finds_a_sleeping_grandchild_and_sees_it_end() {
        let mut child = std::process::Command::new("/bin/sh")
            .args(["-c", "sleep 29; true"])
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let me = std::process::id();
        let mut found = Vec::new();
        for _ in 0..2000 {
            found = descendants_running(me, &["sleep", "29"]);
            if !found.is_empty() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(alive(found[0]));
        assert!(descendants_running(me, &["sleep", "28"]).is_empty());
        kill(found[0]);
        child.wait().unwrap();
        assert!(!alive(found[0]));
    }
}
