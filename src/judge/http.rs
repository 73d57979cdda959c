//! A judge behind an OpenAI-compatible endpoint: llama.cpp's `llama-server`, vLLM, or any
//! server of the chat-completions API (`POST {base}/chat/completions`). The served model is
//! asked for at start (`GET {base}/models`), so an endpoint that is not there is an error
//! before any item. Each reply is constrained to the verdict's shape by the API's standard
//! `response_format` ([`super::grammar::verdict_schema`]) and decoded greedily; asked again
//! for the same prompt (a reply the rubric could not read), it is sampled at a low
//! temperature with the attempt as its seed, so a retry is not the same reply again and
//! every run is the same. Every request has a deadline and a bounded reply; an error
//! status, a reply that is not the API's JSON, or one without text fails that attempt
//! ([`super::judging::judge_item`] asks a bounded number of times, then leaves the item
//! unjudged). With [`HttpJudgeConfig::frames`] (a vision-language model behind the
//! endpoint) the item's eight frames go with the user message as JPEG data URLs, as the
//! paper's judge sees them; without, it is told it is shown none.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::frames::JudgeFrame;
use super::grammar::{verdict_schema, VerdictSchema, MAX_VERDICT_TOKENS};
use super::judging::Judge;

/// The most bytes of one reply read (a verdict is well under 2 kB; a list of models a few
/// kB).
const MAX_REPLY_BYTES: u64 = 1 << 20;
/// An error body quoted in an error, characters.
const QUOTED_CHARS: usize = 200;
/// The temperature of a second or later attempt at one prompt.
const RETRY_TEMPERATURE: f64 = 0.5;

/// Where the judge is and how to reach it.
#[derive(Clone, Debug)]
pub struct HttpJudgeConfig {
    /// The API's base, e.g. `http://127.0.0.1:8080/v1`.
    pub base_url: String,
    /// The model to ask for (`None`: the first the endpoint serves).
    pub model: Option<String>,
    /// Sent as `Authorization: Bearer …` when set.
    pub api_key: Option<String>,
    /// Deadline of one request (connect, send, whole reply).
    pub timeout: Duration,
    /// Show it each item's frames (the model must take images).
    pub frames: bool,
}

/// Why a judge endpoint cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum HttpJudgeError {
    /// The URL is not one this build can reach.
    #[error("judge endpoint {url:?}: {why}")]
    Url {
        /// The URL given.
        url: String,
        /// What is wrong with it.
        why: String,
    },
    /// Asking the endpoint for its models failed.
    #[error("judge endpoint {url}: {why}")]
    Models {
        /// The URL asked.
        url: String,
        /// What went wrong.
        why: String,
    },
}

/// See the module documentation.
pub struct HttpJudge {
    agent: ureq::Agent,
    config: HttpJudgeConfig,
    model: String,
    schema: VerdictSchema,
    /// The prompt asked last (a hash) and how many times in a row.
    last: Option<(u64, u32)>,
}

#[derive(Serialize)]
struct Message<'a> {
    role: &'static str,
    content: Content<'a>,
}

/// A message's content: text, or text and images (the API's content parts).
#[derive(Serialize)]
#[serde(untagged)]
enum Content<'a> {
    Text(&'a str),
    Parts(Vec<Part<'a>>),
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Part<'a> {
    Text { text: &'a str },
    ImageUrl { image_url: ImageUrl },
}

#[derive(Serialize)]
struct ImageUrl {
    url: String,
}

#[derive(Serialize)]
struct JsonSchema<'a> {
    name: &'static str,
    strict: bool,
    schema: &'a VerdictSchema,
}

#[derive(Serialize)]
struct ResponseFormat<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    json_schema: JsonSchema<'a>,
}

#[derive(Serialize)]
struct ChatRequest<'a> {
    model: &'a str,
    messages: [Message<'a>; 2],
    temperature: f64,
    seed: u32,
    max_tokens: usize,
    stream: bool,
    response_format: ResponseFormat<'a>,
}

#[derive(Deserialize)]
struct ChatReply {
    choices: Vec<Choice>,
}

#[derive(Deserialize)]
struct Choice {
    message: ReplyMessage,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct ReplyMessage {
    #[serde(default)]
    content: Option<String>,
}

#[derive(Deserialize)]
struct ModelList {
    data: Vec<ModelEntry>,
}

#[derive(Deserialize)]
struct ModelEntry {
    id: String,
}

impl HttpJudge {
    /// Checks the URL and asks the endpoint which model it serves.
    pub fn connect(mut config: HttpJudgeConfig) -> Result<Self, HttpJudgeError> {
        let url_error = |why: &str| HttpJudgeError::Url {
            url: config.base_url.clone(),
            why: why.to_owned(),
        };
        let base = config.base_url.trim_end_matches('/').to_owned();
        let Some((scheme, rest)) = base.split_once("://") else {
            return Err(url_error("not a URL (e.g. http://127.0.0.1:8080/v1)"));
        };
        if rest.is_empty() {
            return Err(url_error("no host"));
        }
        match scheme {
            "http" => {}
            "https" if cfg!(feature = "https") => {}
            "https" => {
                return Err(url_error(
                    "https needs the cargo feature `https` (this build speaks plain http)",
                ))
            }
            _ => return Err(url_error("only http:// and https:// endpoints")),
        }
        config.base_url = base;
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(config.timeout))
            .http_status_as_error(false)
            .build()
            .into();
        let mut judge = Self {
            agent,
            model: String::new(),
            schema: verdict_schema(),
            last: None,
            config,
        };
        judge.model = match judge.config.model.clone() {
            Some(m) => m,
            None => judge.served_model()?,
        };
        Ok(judge)
    }

    /// The model it asks for.
    pub fn model(&self) -> &str {
        &self.model
    }

    fn served_model(&self) -> Result<String, HttpJudgeError> {
        let url = format!("{}/models", self.config.base_url);
        let err = |why: String| HttpJudgeError::Models {
            url: url.clone(),
            why,
        };
        let mut req = self.agent.get(&url);
        if let Some(key) = &self.config.api_key {
            req = req.header("Authorization", &format!("Bearer {key}"));
        }
        let body = read_reply(req.call()).map_err(err)?;
        let list: ModelList = serde_json::from_str(&body)
            .map_err(|e| err(format!("not a list of models ({e}): {}", quote(&body))))?;
        list.data
            .into_iter()
            .next()
            .map(|m| m.id)
            .ok_or_else(|| err("serves no model".into()))
    }

    fn ask(&mut self, system: &str, user: &str, frames: &[JudgeFrame]) -> Result<String, String> {
        use base64::Engine as _;
        let key = hash(system, user);
        let repeat = match self.last {
            Some((k, n)) if k == key => n + 1,
            _ => 0,
        };
        self.last = Some((key, repeat));
        let body = ChatRequest {
            model: &self.model,
            messages: [
                Message {
                    role: "system",
                    content: Content::Text(system),
                },
                Message {
                    role: "user",
                    content: if self.config.frames {
                        let mut parts = vec![Part::Text { text: user }];
                        parts.extend(frames.iter().map(|f| Part::ImageUrl {
                            image_url: ImageUrl {
                                url: format!(
                                    "data:image/jpeg;base64,{}",
                                    base64::engine::general_purpose::STANDARD.encode(&f.jpeg)
                                ),
                            },
                        }));
                        Content::Parts(parts)
                    } else {
                        Content::Text(user)
                    },
                },
            ],
            temperature: if repeat == 0 { 0.0 } else { RETRY_TEMPERATURE },
            seed: repeat,
            max_tokens: MAX_VERDICT_TOKENS,
            stream: false,
            response_format: ResponseFormat {
                kind: "json_schema",
                json_schema: JsonSchema {
                    name: "verdict",
                    strict: true,
                    schema: &self.schema,
                },
            },
        };
        let body = serde_json::to_string(&body).map_err(|e| e.to_string())?;
        let url = format!("{}/chat/completions", self.config.base_url);
        let mut req = self
            .agent
            .post(&url)
            .header("Content-Type", "application/json");
        if let Some(key) = &self.config.api_key {
            req = req.header("Authorization", &format!("Bearer {key}"));
        }
        let text = read_reply(req.send(body.as_str()))?;
        let reply: ChatReply = serde_json::from_str(&text)
            .map_err(|e| format!("not a chat completion ({e}): {}", quote(&text)))?;
        let choice = reply
            .choices
            .into_iter()
            .next()
            .ok_or_else(|| format!("no choices: {}", quote(&text)))?;
        let content = choice.message.content.unwrap_or_default();
        if content.trim().is_empty() {
            return Err(format!(
                "an empty reply (finish reason {})",
                choice.finish_reason.as_deref().unwrap_or("none")
            ));
        }
        Ok(content)
    }
}

/// The body of a 2xx reply (bounded), or why there is none.
fn read_reply(
    sent: Result<ureq::http::Response<ureq::Body>, ureq::Error>,
) -> Result<String, String> {
    let mut resp = sent.map_err(|e| match e {
        ureq::Error::Timeout(_) => "timed out".to_owned(),
        e => e.to_string(),
    })?;
    let status = resp.status();
    let body = resp
        .body_mut()
        .with_config()
        .limit(MAX_REPLY_BYTES)
        .read_to_string()
        .map_err(|e| format!("HTTP {status}, reading the reply: {e}"))?;
    if !status.is_success() {
        return Err(format!("HTTP {status}: {}", quote(&error_message(&body))));
    }
    Ok(body)
}

/// The API's `{"error": {"message": …}}`, or the body.
fn error_message(body: &str) -> String {
    serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v["error"]["message"].as_str().map(str::to_owned))
        .unwrap_or_else(|| body.to_owned())
}

/// At most [`QUOTED_CHARS`] of `s`, quoted.
fn quote(s: &str) -> String {
    let mut q: String = s.chars().take(QUOTED_CHARS).collect();
    if s.chars().count() > QUOTED_CHARS {
        q.push('…');
    }
    format!("{q:?}")
}

fn hash(system: &str, user: &str) -> u64 {
    use std::hash::{Hash as _, Hasher as _};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    system.hash(&mut h);
    user.hash(&mut h);
    h.finish()
}

impl Judge for HttpJudge {
    fn name(&self) -> String {
        format!(
            "{} at {} (OpenAI-compatible endpoint, greedy, constrained to the verdict's JSON schema, {})",
            self.model,
            self.config.base_url,
            if self.config.frames {
                "shown eight frames"
            } else {
                "no frames"
            }
        )
    }

    fn sees_frames(&self) -> bool {
        self.config.frames
    }

    fn reply(&mut self, system: &str, user: &str, frames: &[JudgeFrame]) -> Result<String, String> {
        self.ask(system, user, frames)
    }
}

#[cfg(test)]
mod tests {
    //! The client against endpoints that misbehave (a TCP listener in the test answering
    //! as told); the real server is tested in tests/judge.rs.
    use super::*;
    use std::io::{BufRead as _, BufReader, Read as _, Write as _};
    use std::net::TcpListener;

    /// Serves `replies` in turn, one per connection (each a raw HTTP response, or `None`:
    /// read the request and never answer), and returns the requests' bodies.
    fn serve(replies: Vec<Option<String>>) -> (String, std::thread::JoinHandle<Vec<String>>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}/v1", listener.local_addr().unwrap());
        let h = std::thread::spawn(move || {
            let mut bodies = Vec::new();
            let mut held = Vec::new();
            for reply in replies {
                let (stream, _) = listener.accept().unwrap();
                let mut r = BufReader::new(stream.try_clone().unwrap());
                let mut len = 0usize;
                loop {
                    let mut line = String::new();
                    r.read_line(&mut line).unwrap();
                    if line == "\r\n" || line.is_empty() {
                        break;
                    }
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        len = v.trim().parse().unwrap();
                    }
                }
                let mut body = vec![0u8; len];
                r.read_exact(&mut body).unwrap();
                bodies.push(String::from_utf8(body).unwrap());
                match reply {
                    Some(text) => {
                        let mut s = stream;
                        s.write_all(text.as_bytes()).unwrap();
                    }
                    None => held.push(stream),
                }
            }
            bodies
        });
        (base, h)
    }

    fn http(status: &str, body: &str) -> Option<String> {
        Some(format!(
            "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ))
    }

    fn completion(content: &str) -> Option<String> {
        let body = serde_json::json!({
            "choices": [{"message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]
        });
        http("200 OK", &body.to_string())
    }

    fn config(base: &str, model: Option<&str>) -> HttpJudgeConfig {
        HttpJudgeConfig {
            base_url: base.into(),
            model: model.map(str::to_owned),
            api_key: Some("k3y".into()),
            timeout: Duration::from_millis(800),
            frames: false,
        }
    }

    #[test]
    fn the_served_model_is_asked_for_and_the_request_is_a_constrained_chat() {
        let (base, h) = serve(vec![
            http("200 OK", r#"{"object":"list","data":[{"id":"smol.gguf"}]}"#),
            completion("{\"verdict\": 1}"),
            completion("again"),
            completion("other"),
        ]);
        let mut j = HttpJudge::connect(config(&format!("{base}/"), None)).unwrap();
        assert_eq!(j.model(), "smol.gguf");
        assert!(j.name().contains(&base), "{}", j.name());
        assert_eq!(j.reply("sys", "item 1", &[]).unwrap(), "{\"verdict\": 1}");
        assert_eq!(j.reply("sys", "item 1", &[]).unwrap(), "again");
        assert_eq!(j.reply("sys", "item 2", &[]).unwrap(), "other");
        let bodies = h.join().unwrap();
        let asks: Vec<serde_json::Value> = bodies[1..]
            .iter()
            .map(|b| serde_json::from_str(b).unwrap())
            .collect();
        let first = &asks[0];
        assert_eq!(first["model"], "smol.gguf");
        assert_eq!(first["messages"][0]["content"], "sys");
        assert_eq!(first["messages"][1]["content"], "item 1");
        assert_eq!(first["temperature"], 0.0);
        assert_eq!(first["response_format"]["type"], "json_schema");
        let schema = &first["response_format"]["json_schema"]["schema"];
        assert_eq!(schema["required"].as_array().unwrap().len(), 10);
        // The same prompt again is sampled with its attempt as the seed; a new one is greedy.
        assert_eq!(
            (asks[1]["temperature"].as_f64(), asks[1]["seed"].as_u64()),
            (Some(RETRY_TEMPERATURE), Some(1))
        );
        assert_eq!(
            (asks[2]["temperature"].as_f64(), asks[2]["seed"].as_u64()),
            (Some(0.0), Some(0))
        );
    }

    /// Shown frames, the user message is its text then each frame as a JPEG data URL, in
    /// order; not shown, the text alone.
    #[test]
    fn frames_go_with_the_user_message_as_data_urls() {
        use base64::Engine as _;
        let (base, h) = serve(vec![completion("{}"), completion("{}")]);
        let frames = [
            JudgeFrame {
                capture_ns: 1,
                jpeg: vec![0xff, 0xd8, 1, 2, 3],
            },
            JudgeFrame {
                capture_ns: 2,
                jpeg: vec![0xff, 0xd8, 4],
            },
        ];
        let mut j = HttpJudge::connect(HttpJudgeConfig {
            frames: true,
            ..config(&base, Some("vlm"))
        })
        .unwrap();
        assert!(j.sees_frames() && j.name().contains("eight frames"));
        j.reply("s", "the item", &frames).unwrap();
        let mut j = HttpJudge::connect(config(&base, Some("lm"))).unwrap();
        assert!(!j.sees_frames());
        j.reply("s", "the item", &frames).unwrap();
        let bodies = h.join().unwrap();
        let shown: serde_json::Value = serde_json::from_str(&bodies[0]).unwrap();
        let parts = shown["messages"][1]["content"].as_array().unwrap();
        assert_eq!(parts.len(), 3);
        assert_eq!(
            parts[0],
            serde_json::json!({"type": "text", "text": "the item"})
        );
        for (p, f) in parts[1..].iter().zip(&frames) {
            assert_eq!(p["type"], "image_url");
            let url = p["image_url"]["url"].as_str().unwrap();
            let b64 = url.strip_prefix("data:image/jpeg;base64,").unwrap();
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(b64)
                .unwrap();
            assert_eq!(bytes, f.jpeg);
        }
        let blind: serde_json::Value = serde_json::from_str(&bodies[1]).unwrap();
        assert_eq!(blind["messages"][1]["content"], "the item");
        assert_eq!(blind["messages"][0]["content"], "s");
    }

    #[test]
    fn an_endpoint_that_fails_fails_the_attempt_with_why() {
        let (base, h) = serve(vec![
            http(
                "500 Internal Server Error",
                r#"{"error":{"message":"model crashed"}}"#,
            ),
            http("200 OK", "{\"choices\": [{\"mess"),
            http("200 OK", r#"{"choices":[]}"#),
            completion("  "),
            None,
            completion("{}"),
        ]);
        let mut j = HttpJudge::connect(config(&base, Some("m"))).unwrap();
        let e = j.reply("s", "u", &[]).unwrap_err();
        assert!(e.contains("500") && e.contains("model crashed"), "{e}");
        let e = j.reply("s", "u", &[]).unwrap_err();
        assert!(e.contains("not a chat completion"), "{e}");
        assert!(j.reply("s", "u", &[]).unwrap_err().contains("no choices"));
        assert!(j.reply("s", "u", &[]).unwrap_err().contains("empty reply"));
        let t = std::time::Instant::now();
        let e = j.reply("s", "u", &[]).unwrap_err();
        assert!(e.contains("timed out"), "{e}");
        assert!(t.elapsed() < Duration::from_secs(5));
        // The endpoint is still used after all that.
        assert_eq!(j.reply("s", "u", &[]).unwrap(), "{}");
        assert_eq!(h.join().unwrap().len(), 6);
    }

    #[test]
    fn endpoints_that_cannot_be_used_are_refused_at_start() {
        for url in ["localhost:8080", "ftp://h/v1", "http://"] {
            let e = HttpJudge::connect(config(url, None)).err().unwrap();
            assert!(matches!(e, HttpJudgeError::Url { .. }), "{url}: {e}");
        }
        if !cfg!(feature = "https") {
            let e = HttpJudge::connect(config("https://h/v1", None))
                .err()
                .unwrap();
            assert!(e.to_string().contains("feature `https`"), "{e}");
        }
        // Nothing listening.
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let e = HttpJudge::connect(config(&format!("http://127.0.0.1:{port}/v1"), None))
            .err()
            .unwrap();
        assert!(matches!(e, HttpJudgeError::Models { .. }), "{e}");
        // A server that serves no model, or not the API.
        let (base, h) = serve(vec![
            http("200 OK", r#"{"data":[]}"#),
            http("404 Not Found", "no such page"),
        ]);
        let e = HttpJudge::connect(config(&base, None)).err().unwrap();
        assert!(e.to_string().contains("serves no model"), "{e}");
        let e = HttpJudge::connect(config(&base, None)).err().unwrap();
        assert!(e.to_string().contains("404"), "{e}");
        h.join().unwrap();
    }
}
