//! A cron expression: a schedule or an error, quickly (libFuzzer's -timeout
//! catches a hang); a schedule's next run is after now.
#![no_main]

use chrono::Utc;
use libfuzzer_sys::fuzz_target;

// The daemon keeps its scheduler private; its cron parser is compiled in here
// from the same source files.
#[path = "../../crates/daemon/src/scheduler"]
#[allow(dead_code)]
mod scheduler {
    pub mod cron;
    mod cron_syntax;
}

use scheduler::cron::CronSchedule;

fuzz_target!(|data: &[u8]| {
    let Ok(expr) = std::str::from_utf8(data) else {
        return;
    };
    let now = Utc::now();
    if let Ok(schedule) = CronSchedule::parse(expr) {
        let next = schedule.next_after_in(now, &Utc);
        assert!(next.is_some_and(|t| t > now), "{expr:?}: {next:?}");
        if let Some(local) = schedule.next_after(now) {
            assert!(local > now, "{expr:?}: {local}");
        }
    }
});
