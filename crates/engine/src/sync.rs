//! Poisoned locks, handled once. Every std lock in the daemon guards a map or
//! a slot whose updates are single inserts, removes or assignments, so a
//! holder that panicked cannot have left it half-changed: the data is taken
//! over rather than dropped (dropping would, say, leave a session busy for
//! good or a connection out of broadcasts).

use std::sync::{Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// `lock()` that takes over a poisoned mutex.
pub trait Locked<T> {
    /// The guard, poisoned or not.
    fn locked(&self) -> MutexGuard<'_, T>;
}

impl<T> Locked<T> for Mutex<T> {
    fn locked(&self) -> MutexGuard<'_, T> {
        self.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// `read()`/`write()` that take over a poisoned lock.
pub trait RwLocked<T> {
    /// A read guard, poisoned or not.
    fn read_locked(&self) -> RwLockReadGuard<'_, T>;
    /// A write guard, poisoned or not.
    fn write_locked(&self) -> RwLockWriteGuard<'_, T>;
}

impl<T> RwLocked<T> for RwLock<T> {
    fn read_locked(&self) -> RwLockReadGuard<'_, T> {
        self.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write_locked(&self) -> RwLockWriteGuard<'_, T> {
        self.write().unwrap_or_else(PoisonError::into_inner)
    }
}
