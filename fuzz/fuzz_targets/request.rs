//! A request line: a request or an error envelope, never a panic; then every
//! typed params accessor and every method's params type on what was parsed.
#![no_main]

use libfuzzer_sys::fuzz_target;
use seekclaw_protocol::params::ScopeParams;
use seekclaw_protocol::{ErrorCode, METHODS, parse_request};

fuzz_target!(|line: &[u8]| {
    match parse_request(line) {
        Ok(r) => {
            let p = &r.params;
            for key in ["id", "workspace", "enabled", "keepCount", "title", "cron"] {
                let _ = (p.str_opt(key), p.str_req(key), p.bool_opt(key));
                let _ = (p.i64_opt(key), p.f64_opt(key));
            }
            let _ = ScopeParams::parse(p);
            for spec in METHODS {
                if let Err(e) = (spec.check_params)(p) {
                    assert_eq!(e.code, ErrorCode::InvalidRequest);
                    assert!(e.param.is_some());
                }
            }
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
