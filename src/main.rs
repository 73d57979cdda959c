//! The `vista` command line.

mod cli;

fn main() -> std::process::ExitCode {
    vista::profile::cpu::mark_start();
    cli::main()
}
