//! The consumer thread: waits for wake-ups from ingest, calls the consumer, stamps a span
//! per call, and reports errors and panics as a stop reason instead of crashing.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use crossbeam_channel::{Receiver, Sender};

use crate::buffer::{ConsumerStreamStats, Reader};
use crate::profile::Span;
use crate::runtime::consumer::Consumer;
use crate::runtime::shared::{intern, Ack, Shared, Wake};
use crate::sample::StreamId;
use crate::time::HostTime;

/// What a consumer thread hands back when it ends.
pub(crate) struct WorkerOutcome {
    pub name: String,
    pub stats: Vec<(StreamId, ConsumerStreamStats)>,
}

/// The body of one consumer thread. `ack` is `Some` in lock-step mode.
pub(crate) fn consumer_thread(
    mut consumer: Box<dyn Consumer>,
    mut reader: Reader,
    wake: Receiver<Wake>,
    ack: Option<Sender<Ack>>,
    shared: Arc<Shared>,
) -> WorkerOutcome {
    let _cpu = crate::profile::cpu::account(consumer.name());
    let name = consumer.name().to_string();
    let stage = intern(&name);
    let mut failed = false;
    while let Ok(msg) = wake.recv() {
        let now = match msg {
            Wake::New => HostTime::now(),
            Wake::Round { now } => now,
        };
        let result = call(consumer.as_mut(), &mut reader, now, &shared, stage);
        if let Some(ack) = &ack {
            // Ingest waits for this answer; if it is gone, the run is ending anyway.
            let _ = ack.send(result.clone());
        }
        if let Err(message) = result {
            shared.fail(&name, message);
            failed = true;
            break;
        }
    }
    // Real-time modes: one last call so everything pushed is delivered (lock-step mode has
    // already had its final round from ingest).
    if !failed && ack.is_none() {
        if let Err(message) = call(
            consumer.as_mut(),
            &mut reader,
            HostTime::now(),
            &shared,
            stage,
        ) {
            shared.fail(&name, message);
        }
    }
    if catch_unwind(AssertUnwindSafe(|| consumer.finish())).is_err() {
        shared.fail(&name, "panicked in finish()".to_string());
    }
    log::debug!("consumer {name} finished");
    WorkerOutcome {
        name,
        stats: reader.stats(),
    }
}

fn call(
    consumer: &mut dyn Consumer,
    reader: &mut Reader,
    now: HostTime,
    shared: &Shared,
    stage: &'static str,
) -> Ack {
    let start = HostTime::now();
    let result = catch_unwind(AssertUnwindSafe(|| consumer.on_samples(reader, now)));
    let end = HostTime::now();
    if let Some(capture) = reader.newest_capture() {
        let span = Span {
            stage,
            capture,
            start,
            end,
        };
        match shared.clock.get() {
            Some(clock) if clock.is_real_time() => {
                shared.profiler.record_with_due(&span, clock.due(capture));
            }
            _ => shared.profiler.record(&span),
        }
    }
    match result {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(e.to_string()),
        Err(panic) => Err(panic_message(panic.as_ref())),
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        format!("panicked: {s}")
    } else if let Some(s) = panic.downcast_ref::<String>() {
        format!("panicked: {s}")
    } else {
        "panicked".to_string()
    }
}
