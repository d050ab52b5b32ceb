//! The threads that run database calls: at most one per pooled connection, started when
//! a call finds none free and ended after a while without work.
//!
//! Database calls used to go to tokio's blocking pool, which starts a new thread whenever
//! none is idle at the instant of the call: under load a thread that has just released its
//! connection has not yet gone back to idle, so the pool grew to dozens of threads for
//! eight connections, each with its own stack and allocator arena, all runnable at once on
//! a small machine, and the slowest requests paid for it. Here the number of threads is
//! bounded by the number of connections, and calls are taken in the order they came.

use std::collections::VecDeque;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

/// A call waiting for a thread.
pub(crate) type Job = Box<dyn FnOnce() + Send + 'static>;

/// How long a thread without work stays before it ends.
const KEEP_ALIVE: Duration = Duration::from_secs(10);

#[derive(Default)]
struct State {
    queue: VecDeque<Job>,
    /// Threads started and not ended.
    started: usize,
    /// Threads waiting for work.
    idle: usize,
}

/// A first-in, first-out queue of calls served by up to `max` threads.
pub(crate) struct Workers {
    state: Mutex<State>,
    work: Condvar,
    max: usize,
}

impl Workers {
    pub(crate) fn new(max: usize) -> Arc<Self> {
        Arc::new(Self {
            state: Mutex::new(State::default()),
            work: Condvar::new(),
            max: max.max(1),
        })
    }

    /// Queues `job`; a thread is started when the calls waiting outnumber the idle threads
    /// and fewer than `max` run. Fails only when the system refuses a new thread while
    /// none runs (the call is then dropped, and its caller sees its result channel close).
    pub(crate) fn submit(self: &Arc<Self>, job: Job) -> std::io::Result<()> {
        let mut state = self.lock();
        state.queue.push_back(job);
        self.work.notify_one();
        if state.queue.len() > state.idle && state.started < self.max {
            let me = Arc::clone(self);
            let spawned = std::thread::Builder::new()
                .name("tacker-db".into())
                .spawn(move || me.serve());
            match spawned {
                Ok(_) => state.started += 1,
                Err(e) if state.started == 0 => {
                    state.queue.pop_back();
                    return Err(e);
                }
                // Running threads will get to it.
                Err(_) => {}
            }
        }
        Ok(())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A job never runs under the lock, so a poisoned lock still holds a sound queue.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn serve(self: Arc<Self>) {
        let mut state = self.lock();
        loop {
            if let Some(job) = state.queue.pop_front() {
                drop(state);
                // A panicking call loses its own result (its channel closes), not the thread.
                let _ = catch_unwind(AssertUnwindSafe(job));
                state = self.lock();
                continue;
            }
            state.idle += 1;
            let (next, waited) = self
                .work
                .wait_timeout(state, KEEP_ALIVE)
                .unwrap_or_else(PoisonError::into_inner);
            state = next;
            state.idle -= 1;
            if waited.timed_out() && state.queue.is_empty() {
                state.started -= 1;
                return;
            }
        }
    }

    #[cfg(test)]
    fn started(&self) -> usize {
        self.lock().started
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc;

    #[test]
    fn runs_every_call_in_order_on_no_more_threads_than_allowed() {
        let workers = Workers::new(3);
        let running = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let (done, finished) = mpsc::channel();
        for i in 0..200 {
            let (running, most, done) = (running.clone(), most.clone(), done.clone());
            workers
                .submit(Box::new(move || {
                    let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(now, Ordering::SeqCst);
                    std::thread::sleep(Duration::from_micros(200));
                    running.fetch_sub(1, Ordering::SeqCst);
                    done.send(i).unwrap();
                }))
                .unwrap();
            assert!(workers.started() <= 3);
        }
        let mut seen: Vec<i32> = (0..200).map(|_| finished.recv().unwrap()).collect();
        assert!(most.load(Ordering::SeqCst) <= 3);
        assert!(most.load(Ordering::SeqCst) > 1, "calls ran one at a time");
        seen.sort();
        assert_eq!(seen, (0..200).collect::<Vec<_>>());
    }

    #[test]
    fn a_panicking_call_does_not_take_its_thread_or_the_next_calls() {
        let workers = Workers::new(1);
        workers.submit(Box::new(|| panic!("boom"))).unwrap();
        let (tx, rx) = mpsc::channel();
        workers
            .submit(Box::new(move || tx.send(7).unwrap()))
            .unwrap();
        assert_eq!(rx.recv_timeout(Duration::from_secs(5)).unwrap(), 7);
        assert_eq!(workers.started(), 1);
    }
}
