//! `turns`: the performance figures of agent turns (issue 4), each against a
//! baseline measured in the same run: relay overhead against reading the same
//! SSE stream directly, many concurrent turns (events counted, peak RSS),
//! cancel latency and first-event latency against the ping round trip.
//! Every section runs its own daemon and testkit provider server.

mod concurrent;
mod direct;
mod latency;
mod procs;
pub(crate) mod relay;
mod report;
pub(crate) mod setup;
pub(crate) mod wire;

use std::path::Path;
use std::time::Duration;

use anyhow::{Result, bail};

pub use concurrent::ConcurrentPlan;
use latency::CancelPoint;
use relay::Transport;

/// The parts of the benchmark, runnable one at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Section {
    Relay,
    Concurrent,
    Cancel,
    FirstEvent,
}

pub struct TurnsArgs<'a> {
    pub bin: &'a Path,
    pub json: bool,
    pub sections: Vec<Section>,
    pub relay_runs: usize,
    pub relay_deltas: usize,
    pub concurrent: ConcurrentPlan,
    pub cancels: usize,
    pub first_events: usize,
}

/// Everything measured; sections not run stay empty.
#[derive(Default)]
pub struct Figures {
    pub relay: Vec<relay::RelayFigures>,
    pub concurrent: Option<concurrent::ConcurrentFigures>,
    pub cancel: Vec<latency::CancelFigures>,
    pub first_event: Option<latency::FirstEventFigures>,
}

pub fn run(args: &TurnsArgs<'_>) -> Result<()> {
    if args.relay_runs == 0 || args.cancels == 0 || args.first_events == 0 {
        bail!("run counts must be at least 1");
    }
    let scratch = setup::Scratch::new()?;
    let mut figures = Figures::default();
    let wants = |s: Section| args.sections.is_empty() || args.sections.contains(&s);
    if wants(Section::Relay) {
        for transport in [Transport::H2c, Transport::Http1] {
            eprintln!(
                "relay over {} ({} deltas) ...",
                transport.name(),
                args.relay_deltas
            );
            figures.relay.push(relay::run(
                args.bin,
                &scratch,
                transport,
                args.relay_runs,
                args.relay_deltas,
            )?);
        }
    }
    if wants(Section::Concurrent) {
        let plan = args.concurrent;
        eprintln!(
            "{} concurrent turns over {} connections ...",
            plan.turns, plan.connections
        );
        figures.concurrent = Some(concurrent::run(args.bin, &scratch, plan)?);
    }
    if wants(Section::Cancel) {
        for point in [CancelPoint::SlowStream, CancelPoint::Sleep] {
            eprintln!("cancel {} × {} ...", point.label(), args.cancels);
            figures
                .cancel
                .push(latency::cancel(args.bin, &scratch, point, args.cancels)?);
        }
    }
    if wants(Section::FirstEvent) {
        eprintln!("first event × {} ...", args.first_events);
        figures.first_event = Some(latency::first_event(args.bin, &scratch, args.first_events)?);
    }
    if args.json {
        println!("{}", report::to_json(&figures));
    } else {
        report::print(&figures);
    }
    report::print_stderr(&figures);
    Ok(())
}

/// Default hold of the tool-call replies in the concurrent section.
pub const DEFAULT_TOOL_DELAY: Duration = Duration::from_secs(2);
