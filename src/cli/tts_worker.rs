//! `vista tts-worker` (hidden): eSpeak NG in its own process, serving the `vista` that
//! started it; and the set-up that makes every other command speak through it.

use vista::speech::tts::{self, worker, WorkerCommand};

/// The subcommand's name, as the parent runs it.
const SUBCOMMAND: &str = "tts-worker";

/// Speech synthesis goes through a worker process running this executable, so that a crash
/// inside eSpeak NG costs one utterance, not the run. Where the executable cannot be found,
/// synthesis stays in this process (with a warning).
pub fn use_for_speech() {
    match std::env::current_exe() {
        Ok(program) => {
            tts::use_worker_process(WorkerCommand {
                program,
                args: vec![SUBCOMMAND.into()],
            });
        }
        Err(e) => log::warn!(
            "speech: eSpeak NG runs inside this process (its own executable was not found: {e})"
        ),
    }
}

/// Serves requests on standard input until it closes.
pub fn run() -> anyhow::Result<()> {
    worker::serve(std::io::stdin(), std::io::stdout())?;
    Ok(())
}
