//! A request line: a request or an error envelope, never a panic; then every
//! typed params accessor on what was parsed.
#![no_main]

use libfuzzer_sys::fuzz_target;
use seekclaw_protocol::params::*;
use seekclaw_protocol::{ErrorCode, parse_request};

fuzz_target!(|line: &[u8]| {
    match parse_request(line) {
        Ok(r) => {
            let p = &r.params;
            for key in ["id", "workspace", "enabled", "keepCount", "title", "cron"] {
                let _ = (p.str_opt(key), p.str_req(key), p.bool_opt(key));
                let _ = (p.i64_opt(key), p.f64_opt(key));
            }
            let _ = ScopeParams::parse(p);
            let _ = SessionRef::parse(p);
            let _ = SessionNewParams::parse(p);
            let _ = SessionListParams::parse(p);
            let _ = SessionUpdateParams::parse(p);
            let _ = SessionArchiveParams::parse(p);
            let _ = SessionTruncateParams::parse(p);
            let _ = ProjectUpsertParams::parse(p);
            let _ = ProjectRemoveParams::parse(p);
            let _ = ScheduleUpsertParams::parse(p);
            let _ = ScheduleToggleParams::parse(p);
            let _ = schedule_id(p);
        }
        Err(e) => {
            assert_eq!(e.id, 0);
            assert!(matches!(
                e.error.code,
                ErrorCode::InvalidJson | ErrorCode::InvalidRequest
            ));
        }
    }
});
