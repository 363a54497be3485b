//! The process's OpenTelemetry exporter, as the engine holds it: started
//! once by the front end that runs turns, fed by every turn's handle, and
//! flushed when the engine closes.

use seekclaw_telemetry::{Telemetry, TurnObserver, TurnStart};

use crate::engine::Engine;

impl Engine {
    /// Starts exporting this process's turns as `telemetry` in the config
    /// says (nothing when no endpoint is set), for the front end
    /// `front_end` (`daemon`, `run`, `serve`, `acp`). Once per process: a
    /// second call keeps the first exporter. A bad setting is logged and
    /// leaves telemetry off; it never stops the front end.
    pub fn start_telemetry(&self, front_end: &'static str) {
        if self.telemetry.get().is_some() {
            return;
        }
        let settings = self.config.load().telemetry.clone();
        let telemetry = Telemetry::start(&settings, front_end).unwrap_or_else(|e| {
            tracing::warn!(error = %e, "telemetry is off");
            Telemetry::off()
        });
        let _ = self.telemetry.set(telemetry);
    }

    /// Exports what is pending (at exit); waits a few seconds at most.
    pub async fn flush_telemetry(&self) {
        if let Some(telemetry) = self.telemetry.get() {
            telemetry.shutdown().await;
        }
    }

    /// The observer of a turn starting now.
    pub(crate) fn observe_turn(&self, start: TurnStart<'_>) -> TurnObserver {
        self.telemetry
            .get()
            .map_or_else(TurnObserver::off, |t| t.turn(start))
    }
}
