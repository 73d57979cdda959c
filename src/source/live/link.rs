//! A connection to or from a device: TCP, or a Unix-domain socket (`unix:/path`), with the
//! few socket operations the live source and the simulator need.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
#[cfg(unix)]
use std::os::unix::net::{UnixListener, UnixStream};
use std::time::{Duration, Instant};

/// The prefix that selects a Unix-domain socket in an address (`unix:/run/vista.sock`).
pub const UNIX_PREFIX: &str = "unix:";

/// One connection.
#[derive(Debug)]
pub enum Link {
    /// TCP (loopback by default).
    Tcp(TcpStream),
    /// Unix-domain socket.
    #[cfg(unix)]
    Unix(UnixStream),
}

impl Link {
    /// Connects to `addr`: `unix:/path` or `host:port`.
    pub fn connect(addr: &str) -> io::Result<Link> {
        #[cfg(unix)]
        if let Some(path) = addr.strip_prefix(UNIX_PREFIX) {
            return UnixStream::connect(path).map(Link::Unix);
        }
        let s = TcpStream::connect(addr)?;
        let _ = s.set_nodelay(true);
        Ok(Link::Tcp(s))
    }

    /// Sets the read timeout (`None`: block).
    pub fn set_read_timeout(&self, t: Option<Duration>) -> io::Result<()> {
        match self {
            Link::Tcp(s) => s.set_read_timeout(t),
            #[cfg(unix)]
            Link::Unix(s) => s.set_read_timeout(t),
        }
    }

    /// Closes both directions.
    pub fn shutdown(&self) {
        let _ = match self {
            Link::Tcp(s) => s.shutdown(Shutdown::Both),
            #[cfg(unix)]
            Link::Unix(s) => s.shutdown(Shutdown::Both),
        };
    }
}

/// Reads from a link under one deadline for a whole exchange (a handshake): each read waits
/// at most the time left, so a peer trickling bytes cannot hold the link past the deadline
/// (a per-read timeout alone would let it). Restores no timeout: the caller sets the next.
#[derive(Debug)]
pub struct Deadline<'a> {
    link: &'a mut Link,
    until: Instant,
}

impl<'a> Deadline<'a> {
    /// Reads from `link` until `within` from now.
    pub fn new(link: &'a mut Link, within: Duration) -> Self {
        Self {
            link,
            until: Instant::now() + within,
        }
    }
}

impl Read for Deadline<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "handshake deadline passed",
            ));
        }
        self.link.set_read_timeout(Some(left))?;
        self.link.read(buf)
    }
}

impl Read for Link {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Link::Tcp(s) => s.read(buf),
            #[cfg(unix)]
            Link::Unix(s) => s.read(buf),
        }
    }
}

impl Write for Link {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Link::Tcp(s) => s.write(buf),
            #[cfg(unix)]
            Link::Unix(s) => s.write(buf),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match self {
            Link::Tcp(s) => s.flush(),
            #[cfg(unix)]
            Link::Unix(s) => s.flush(),
        }
    }
}

/// A listening socket.
#[derive(Debug)]
pub enum Listener {
    /// TCP.
    Tcp(TcpListener),
    /// Unix-domain socket.
    #[cfg(unix)]
    Unix(UnixListener),
}

impl Listener {
    /// Binds `addr` (`unix:/path` or `host:port`) as given: callers check whether the
    /// address may be exposed.
    pub fn bind(addr: &str) -> io::Result<Listener> {
        #[cfg(unix)]
        if let Some(path) = addr.strip_prefix(UNIX_PREFIX) {
            return UnixListener::bind(path).map(Listener::Unix);
        }
        TcpListener::bind(addr).map(Listener::Tcp)
    }

    /// The bound address, as a client would pass it.
    pub fn local_addr(&self) -> String {
        match self {
            Listener::Tcp(l) => l
                .local_addr()
                .map_or_else(|_| "?".to_string(), |a| a.to_string()),
            #[cfg(unix)]
            Listener::Unix(l) => l
                .local_addr()
                .ok()
                .and_then(|a| {
                    a.as_pathname()
                        .map(|p| format!("{UNIX_PREFIX}{}", p.display()))
                })
                .unwrap_or_else(|| "unix:?".to_string()),
        }
    }

    /// Makes `accept` non-blocking (or blocking again).
    pub fn set_nonblocking(&self, on: bool) -> io::Result<()> {
        match self {
            Listener::Tcp(l) => l.set_nonblocking(on),
            #[cfg(unix)]
            Listener::Unix(l) => l.set_nonblocking(on),
        }
    }

    /// Accepts one connection (blocking again) and names its peer.
    pub fn accept(&self) -> io::Result<(Link, String)> {
        match self {
            Listener::Tcp(l) => {
                let (s, peer) = l.accept()?;
                s.set_nonblocking(false)?;
                let _ = s.set_nodelay(true);
                Ok((Link::Tcp(s), peer.to_string()))
            }
            #[cfg(unix)]
            Listener::Unix(l) => {
                let (s, _) = l.accept()?;
                s.set_nonblocking(false)?;
                Ok((Link::Unix(s), self.local_addr()))
            }
        }
    }
}
