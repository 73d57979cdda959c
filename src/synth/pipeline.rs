//! Frames rendered ahead of the writer: every camera frame of a session is a job; worker
//! threads take the next job as soon as they are free (so a 1408² RGB frame and a small
//! eye-tracking frame balance out), render and encode it with their own copy of the
//! scene, and the writer takes the frames back in job order while it encodes the other
//! streams and the semi-dense map on its own thread. Workers run at most `window` frames
//! ahead of the writer (bounded memory). A frame depends only on its camera and time, so
//! the bytes do not depend on the number of workers.

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::Scope;

use super::frames::{EncodedFrame, FrameCamera, FrameWorld};
use super::render::Scene;

/// Shared between the writer and the workers.
#[derive(Debug, Default)]
struct State {
    /// Next job to hand out.
    next: usize,
    /// Jobs the writer has taken back.
    taken: usize,
    /// Finished frames not yet taken, by job index (`None`: refused or failed).
    done: BTreeMap<usize, Option<EncodedFrame>>,
    /// The writer has gone (the end or an error): workers stop.
    stop: bool,
    /// Workers still running.
    alive: usize,
}

#[derive(Debug, Default)]
struct Shared {
    state: Mutex<State>,
    /// Signalled when a frame is done or taken, and on stop.
    changed: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // The state stays consistent even if a holder panicked (no panics while held).
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn wait<'a>(&self, g: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
        self.changed.wait(g).unwrap_or_else(|e| e.into_inner())
    }
}

/// The writer's end of the pipeline; dropping it stops the workers.
#[derive(Debug)]
pub struct FramePipeline {
    shared: Arc<Shared>,
    jobs: usize,
}

impl FramePipeline {
    /// Starts `workers` threads (at least one) in scope `s` rendering and encoding `jobs`
    /// (`(camera index into cams, t_ns)`) at most `window` (at least one) frames ahead of
    /// [`FramePipeline::next_frame`].
    pub fn start<'scope, 'env: 'scope>(
        s: &'scope Scope<'scope, 'env>,
        world: FrameWorld<'env>,
        cams: &'env [FrameCamera],
        jobs: &'env [(usize, i64)],
        scene: &'env Scene,
        workers: usize,
        window: usize,
    ) -> Self {
        let shared = Arc::new(Shared::default());
        let window = window.max(1);
        let workers = workers.max(1);
        shared.lock().alive = workers;
        for _ in 0..workers {
            let shared = Arc::clone(&shared);
            s.spawn(move || {
                let _alive = Alive(&shared);
                let mut scene = scene.clone();
                let mut pixels = Vec::new();
                loop {
                    let j = {
                        let mut st = shared.lock();
                        loop {
                            if st.stop || st.next >= jobs.len() {
                                return;
                            }
                            if st.next < st.taken + window {
                                break;
                            }
                            st = shared.wait(st);
                        }
                        st.next += 1;
                        st.next - 1
                    };
                    let frame = jobs.get(j).and_then(|&(c, t_ns)| {
                        let cam = cams.get(c)?;
                        // A panicking frame is reported as an encoding failure.
                        catch_unwind(AssertUnwindSafe(|| {
                            world.frame(cam, t_ns, &mut scene, &mut pixels, 1)
                        }))
                        .ok()
                        .flatten()
                    });
                    shared.lock().done.insert(j, frame);
                    shared.changed.notify_all();
                }
            });
        }
        Self {
            shared,
            jobs: jobs.len(),
        }
    }

    /// The next frame in job order (`Some(None)`: refused by the encoder or failed), `None`
    /// after the last.
    pub fn next_frame(&mut self) -> Option<Option<EncodedFrame>> {
        let mut st = self.shared.lock();
        if st.taken >= self.jobs {
            return None;
        }
        loop {
            let j = st.taken;
            let frame = match st.done.remove(&j) {
                Some(frame) => frame,
                // Every worker is gone without it (a worker died): a failed frame.
                None if st.alive == 0 => None,
                None => {
                    st = self.shared.wait(st);
                    continue;
                }
            };
            st.taken += 1;
            drop(st);
            self.shared.changed.notify_all();
            return Some(frame);
        }
    }
}

/// Counts a worker out when it ends, however it ends.
struct Alive<'a>(&'a Shared);

impl Drop for Alive<'_> {
    fn drop(&mut self) {
        let mut st = self.0.lock();
        st.alive = st.alive.saturating_sub(1);
        drop(st);
        self.0.changed.notify_all();
    }
}

impl Drop for FramePipeline {
    fn drop(&mut self) {
        self.shared.lock().stop = true;
        self.shared.changed.notify_all();
    }
}
