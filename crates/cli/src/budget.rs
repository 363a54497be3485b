//! `seekclaw budget show|set`: spend budgets and what was spent against
//! them. Works without a daemon: the config through the config crate's
//! comment-preserving edit, own budgets in the store (a running daemon
//! reads both afresh at the next model request).

use std::path::PathBuf;

use anyhow::{Result, bail};
use clap::{Args, Subcommand};
use seekclaw_config::{ConfigError, Home};
use seekclaw_engine::{BudgetScope, BudgetSubject, ConfigService, Scope};
use seekclaw_store::{BudgetOwner, OwnBudget, Store};

#[derive(Subcommand)]
pub enum BudgetCommand {
    /// The budgets in effect and what was spent against each (today's and
    /// this month's totals too).
    Show {
        #[command(flatten)]
        at: Where,
        /// Print as JSON (as the daemon's `budget.get` answers).
        #[arg(long)]
        json: bool,
    },
    /// Set a budget: `session`, `day`, `project` or `schedule`, in USD
    /// (`--tokens` for models without a price). With `--session` (or
    /// `--task` for `schedule`) that session's (task's) own budget, over the
    /// config's; else `budgets.<scope>` in config.json. No amount removes it.
    Set {
        /// session, day, project or schedule.
        scope: String,
        /// US dollars.
        usd: Option<f64>,
        /// Tokens of models without a price (session and day).
        #[arg(long)]
        tokens: Option<u64>,
        /// The scheduled task whose own budget to set (`schedule`).
        #[arg(long)]
        task: Option<String>,
        #[command(flatten)]
        at: Where,
    },
}

/// Which session (and project).
#[derive(Args)]
pub struct Where {
    /// The session (its own budget, and the budgets that apply to it).
    #[arg(long)]
    session: Option<String>,
    /// Project directory (default: the current directory's project root).
    #[arg(long, conflicts_with = "global")]
    workspace: Option<PathBuf>,
    /// The directory-free global scope.
    #[arg(long)]
    global: bool,
}

pub fn budget(home: &Home, cmd: BudgetCommand) -> Result<()> {
    let store = Store::open(&home.db_path())?;
    match cmd {
        BudgetCommand::Show { at, json } => {
            let view = show(home, &store, &at)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&view)?);
            } else {
                print(&view);
            }
        }
        BudgetCommand::Set {
            scope,
            usd,
            tokens,
            task,
            at,
        } => {
            let Some(which) = BudgetScope::parse(&scope) else {
                bail!("unknown budget {scope:?} (expected session, day, project or schedule)");
            };
            if usd.is_some_and(|u| !u.is_finite() || u < 0.0) {
                bail!("the amount must be 0 dollars or more");
            }
            if tokens.is_some() && !matches!(which, BudgetScope::Session | BudgetScope::Day) {
                bail!("--tokens applies to the session and day budgets only");
            }
            let own = OwnBudget { usd, tokens };
            match (which, &at.session, task) {
                (BudgetScope::Session, Some(id), _) => {
                    let scope = session_scope(home, &store, &at, id)?;
                    let owner = BudgetOwner::Session {
                        scope: scope.key,
                        id: id.clone(),
                    };
                    store.set_own_budget(&owner, own)?;
                }
                (BudgetScope::Schedule, _, Some(task)) => {
                    store.set_own_budget(&BudgetOwner::Task(task), own)?;
                }
                _ => set_config(home, which, own)?,
            }
            print(&show(home, &store, &at)?);
        }
    }
    Ok(())
}

fn set_config(home: &Home, which: BudgetScope, own: OwnBudget) -> Result<()> {
    seekclaw_config::edits::edit_config(home, |cfg| {
        let b = &mut cfg.budgets;
        match which {
            BudgetScope::Session => (b.session, b.tokens.session) = (own.usd, own.tokens),
            BudgetScope::Day => (b.day, b.tokens.day) = (own.usd, own.tokens),
            BudgetScope::Project => b.project = own.usd,
            BudgetScope::Schedule => b.schedule = own.usd,
        }
        Ok::<_, ConfigError>(())
    })?;
    Ok(())
}

fn scope_of(home: &Home, at: &Where) -> Result<Scope> {
    let cwd = crate::cwd::working_dir()?;
    Ok(Scope::local(
        home,
        &cwd,
        at.workspace.as_deref(),
        at.global,
    )?)
}

/// The scope of session `id`, which must exist there.
fn session_scope(home: &Home, store: &Store, at: &Where, id: &str) -> Result<Scope> {
    let scope = scope_of(home, at)?;
    if store.session_cost(&scope.key, id)?.is_none() {
        bail!(
            "no session {id} in {} (name its project with --workspace, or --global)",
            scope
                .workspace_string()
                .as_deref()
                .unwrap_or("the global scope")
        );
    }
    Ok(scope)
}

fn show(home: &Home, store: &Store, at: &Where) -> Result<seekclaw_protocol::api::BudgetView> {
    let scope = match &at.session {
        Some(id) => Some(session_scope(home, store, at, id)?),
        None => scope_of(home, at).ok(),
    };
    let budgets = ConfigService::one_shot(home.clone()).load().budgets;
    let subject = BudgetSubject {
        scope: scope.map(|s| s.key),
        session: at.session.clone(),
        front_end: None,
    };
    Ok(seekclaw_engine::budget_status(store, &budgets, &subject).view(at.session.clone()))
}

fn print(view: &seekclaw_protocol::api::BudgetView) {
    let amount = |usd: Option<f64>, tokens: Option<u64>| {
        seekclaw_protocol::wording::budget_amount(usd, tokens.unwrap_or(0))
    };
    if view.budgets.is_empty() {
        println!("No budget is set (seekclaw budget set session|day|project|schedule USD).");
    }
    for b in &view.budgets {
        let spent = match b.usd {
            Some(_) => amount(Some(b.spent_usd), None),
            None => amount(None, Some(b.spent_tokens)),
        };
        let left = amount(b.remaining_usd, b.remaining_tokens);
        let task = b
            .task_id
            .as_deref()
            .map_or(String::new(), |t| format!(" {t}"));
        println!(
            "{:<8} {:>10}  spent {:>10}  left {:>10}  ({}{task})",
            b.scope,
            amount(b.usd, b.tokens),
            spent,
            left,
            b.source
        );
    }
    println!(
        "today: {}  this month: {}",
        amount(Some(view.today_cost_usd), None),
        amount(Some(view.month_cost_usd), None)
    );
}
