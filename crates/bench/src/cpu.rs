//! On-CPU time of threads, from `/proc/<pid>/task/<tid>/schedstat` (ns
//! resolution). Server CPU per answer is a steadier figure than throughput on a
//! shared 2-core box, and it shows whether the client ate the server's CPU.

use std::path::Path;

/// Whose threads to count.
#[derive(Debug, Clone, Copy)]
pub enum Threads<'a> {
    /// Every thread of a process (the daemon).
    Process(u32),
    /// This process's threads whose name starts with the prefix (a tokio runtime's workers).
    Named(&'a str),
}

/// Sum of on-CPU ns of the selected threads now alive; 0 where /proc is unreadable
/// (threads that exit in between take their time with them, which only
/// under-counts short-lived blocking threads).
pub fn cpu_ns(threads: Threads<'_>) -> u64 {
    let (dir, prefix) = match threads {
        Threads::Process(pid) => (format!("/proc/{pid}/task"), None),
        Threads::Named(prefix) => ("/proc/self/task".to_string(), Some(prefix)),
    };
    let Ok(tasks) = std::fs::read_dir(&dir) else {
        return 0;
    };
    tasks
        .filter_map(Result::ok)
        .filter(|t| prefix.is_none_or(|p| comm_starts_with(&t.path(), p)))
        .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum()
}

fn comm_starts_with(task: &Path, prefix: &str) -> bool {
    std::fs::read_to_string(task.join("comm")).is_ok_and(|c| c.starts_with(prefix))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_named_threads_and_processes() {
        let spin = std::thread::Builder::new()
            .name("cpu-test-spin".into())
            .spawn(|| {
                let start = std::time::Instant::now();
                let mut x = 0u64;
                while start.elapsed() < std::time::Duration::from_millis(30) {
                    x = x.wrapping_add(1);
                }
                std::hint::black_box(x);
                std::thread::sleep(std::time::Duration::from_millis(200));
            })
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(100));
        let named = cpu_ns(Threads::Named("cpu-test-spin"));
        assert!(named >= 10_000_000, "{named}");
        assert_eq!(cpu_ns(Threads::Named("no-such-thread-name")), 0);
        assert!(cpu_ns(Threads::Process(std::process::id())) >= named);
        spin.join().unwrap();
    }
}
