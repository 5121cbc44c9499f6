// SPDX-License-Identifier: GPL-2.0
//! make bench's Rust client: COUNT children started with
//! std::process::Command, as Rust programs start them (std uses
//! posix_spawnp() when it can: no pre_exec, no uid or gid changes), each
//! with its stdout on /dev/null, waited for in turn.
//!   rust-spawn [COUNT]
use std::process::{Command, Stdio};

fn main() {
    let count: u32 = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(300);
    for i in 0..count {
        let status = Command::new("true")
            .arg(i.to_string())
            .stdout(Stdio::null())
            .status()
            .expect("spawning true");
        assert!(status.success(), "true failed: {status}");
    }
}
