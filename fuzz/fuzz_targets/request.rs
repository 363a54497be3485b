//! A request line: a request or an error envelope, never a panic; then the string
//! getter and every method's params type on what was parsed.
#![no_main]

use libfuzzer_sys::fuzz_target;
use seekclaw_protocol::params::ScopeParams;
use seekclaw_protocol::{ErrorCode, METHODS, parse_request};

fuzz_target!(|line: &[u8]| {
    match parse_request(line) {
        Ok(r) => {
            let p = &r.params;
            for key in ["id", "workspace", "enabled", "keepCount", "title", "cron"] {
                let _ = p.str_opt(key);
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
