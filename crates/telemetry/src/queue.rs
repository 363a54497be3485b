//! The records between the turns and the exporting task: a bounded buffer
//! that a turn appends to without waking anyone (a wake-up per record, a
//! futex and a thread switch, cost a short turn more than the record). The
//! task drains it a few times a second; records carry their own times.

use std::sync::Mutex;
use std::time::Duration;

use crate::observer::Record;

pub(crate) struct Queue {
    records: Mutex<Vec<Record>>,
    cap: usize,
    wake: tokio::sync::Notify,
}

impl std::fmt::Debug for Queue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Queue")
            .field("cap", &self.cap)
            .finish_non_exhaustive()
    }
}

impl Queue {
    pub(crate) fn new(cap: usize) -> Queue {
        Queue {
            records: Mutex::new(Vec::new()),
            cap,
            wake: tokio::sync::Notify::new(),
        }
    }

    /// Appends `record`; `false` (and it is dropped) when the buffer is full.
    pub(crate) fn push(&self, record: Record) -> bool {
        let mut records = self.records.lock().unwrap_or_else(|e| e.into_inner());
        if records.len() >= self.cap {
            return false;
        }
        records.push(record);
        true
    }

    /// Appends past the bound and wakes the task now (shutdown).
    pub(crate) fn push_now(&self, record: Record) {
        self.records
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(record);
        self.wake.notify_one();
    }

    /// Everything queued so far, in order.
    pub(crate) fn take(&self) -> Vec<Record> {
        std::mem::take(&mut *self.records.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Returns after `period`, or at once when woken.
    pub(crate) async fn wait(&self, period: Duration) {
        tokio::select! {
            () = self.wake.notified() => {}
            () = tokio::time::sleep(period) => {}
        }
    }
}
