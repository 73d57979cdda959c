//! The `cpal` device sink against ALSA configurations written by the test (each case runs
//! in a child process whose `HOME` holds an `.asoundrc`): a device that cannot play falls
//! back to the WAV file with a reason, and a device routed to ALSA's file plugin really
//! receives the audio (the capture holds the tone at its pitch, on every channel).

use std::path::Path;
use std::process::{Command, Stdio};

use vista::speech::sink::{open_sink, AudioChoice};
use vista::speech::Pan;

/// Runs the ignored test `name` of this binary in a child process with `HOME=home`.
fn run_child(name: &str, home: &Path) {
    let status = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name, "--ignored", "--quiet"])
        .env("HOME", home)
        .env("VISTA_DEVICE_TEST_DIR", home)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "child {name} failed");
}

fn child_dir() -> Option<std::path::PathBuf> {
    std::env::var_os("VISTA_DEVICE_TEST_DIR").map(Into::into)
}

#[test]
#[ignore = "child process of falls_back_to_wav_when_no_device_plays"]
fn fallback_child() {
    let Some(dir) = child_dir() else { return };
    let wav = dir.join("speech.wav");
    let mut opened = open_sink(AudioChoice::Device, Some(&wav), 22_050).unwrap();
    assert_eq!(opened.sink.name(), "wav");
    let reason = opened.fallback_reason.clone().unwrap();
    assert!(reason.contains("audio device"), "{reason}");
    opened.sink.write(100, &[1000; 50], Pan::CENTRE).unwrap();
    opened.sink.finish(None).unwrap();
    let samples: Vec<i16> = hound::WavReader::open(&wav)
        .unwrap()
        .samples::<i16>()
        .map(|s| s.unwrap())
        .collect();
    // Stereo frames, heard from the centre: both ears alike.
    assert_eq!(samples.len(), 300);
    assert!(samples[..200].iter().all(|&s| s == 0));
    assert!(samples[200..].iter().all(|&s| s == 1000));
}

#[test]
fn falls_back_to_wav_when_no_device_plays() {
    let home = tempfile::tempdir().unwrap();
    // The default device is a sound card that does not exist.
    std::fs::write(
        home.path().join(".asoundrc"),
        "pcm.!default { type hw card 31 }\nctl.!default { type hw card 31 }\n",
    )
    .unwrap();
    run_child("fallback_child", home.path());
}

#[test]
#[ignore = "child process of device_really_receives_the_audio"]
fn capture_child() {
    let Some(dir) = child_dir() else { return };
    let mut opened = open_sink(AudioChoice::Device, None, 22_050).unwrap();
    assert!(
        opened.fallback_reason.is_none(),
        "{:?}",
        opened.fallback_reason
    );
    assert_eq!(opened.sink.name(), "device");
    // One second of 440 Hz at 22 050 Hz.
    let tone: Vec<i16> = (0..22_050)
        .map(|i| {
            ((i as f64 * 2.0 * std::f64::consts::PI * 440.0 / 22_050.0).sin() * 16_000.0) as i16
        })
        .collect();
    for block in tone.chunks(441) {
        opened.sink.write(0, block, Pan::CENTRE).unwrap();
    }
    opened.sink.finish(None).unwrap();
    drop(opened);
    std::fs::write(dir.join("done"), b"").unwrap();
}

#[test]
fn device_really_receives_the_audio() {
    let home = tempfile::tempdir().unwrap();
    let capture = home.path().join("captured.raw");
    // ALSA's default device writes everything it is given to a raw file (the null plugin
    // underneath consumes as fast as it is fed, so silence surrounds the tone).
    std::fs::write(
        home.path().join(".asoundrc"),
        format!(
            "pcm.!default {{ type file slave.pcm \"null\" file \"{}\" format \"raw\" }}\n",
            capture.display()
        ),
    )
    .unwrap();
    run_child("capture_child", home.path());
    assert!(home.path().join("done").exists());
    let bytes = std::fs::read(&capture).unwrap();
    // cpal opens ALSA's null device as 48 kHz stereo f32 (its default configuration).
    let values: Vec<f32> = bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let frames: Vec<[f32; 2]> = values.chunks_exact(2).map(|f| [f[0], f[1]]).collect();
    assert!(frames.iter().all(|f| f[0] == f[1]), "channels differ");
    let first = frames.iter().position(|f| f[0] != 0.0).unwrap();
    let last = frames.iter().rposition(|f| f[0] != 0.0).unwrap();
    let played: Vec<f32> = frames[first..=last].iter().map(|f| f[0]).collect();
    // One second at 48 kHz, give or take the zero samples at the ends of the sine.
    assert!(
        (47_990..=48_000).contains(&played.len()),
        "{}",
        played.len()
    );
    let rising = played
        .windows(2)
        .filter(|w| w[0] < 0.0 && w[1] >= 0.0)
        .count();
    assert!((439..=441).contains(&rising), "{rising} cycles");
    let peak = played.iter().fold(0.0f32, |m, v| m.max(v.abs()));
    assert!((peak - 16_000.0 / 32_768.0).abs() < 0.01, "peak {peak}");
}
