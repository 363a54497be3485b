//! Method → handler. The match is exhaustive over the protocol's method table, so a
//! listed method without a handler does not compile.

use seekclaw_protocol::{
    Envelope, ErrorCode, Method, MethodError, ProtocolInfo, Request, Serving, event,
};

use crate::chats::ChatStart;
use crate::connection::Connection;
use crate::ctx::Ctx;
use crate::handlers::{
    approve, budget, chat, checkpoint, goal, mcp, model, plugin, policy, profile, project,
    provider, schedule, search, session, skill, system, watch, workspace,
};

/// Handles methods that answer without I/O, straight from the read loop.
pub fn inline(method: Method, req: &Request) -> Envelope {
    match method {
        Method::Ping => Envelope::new(req.id, event::PONG, ""),
        Method::ProtocolInfo => Envelope::json_result(req.id, &ProtocolInfo::from_table()),
        // The read loop takes a connection's first request itself.
        Method::ConnectionUpgrade => Envelope::error(
            req.id,
            &MethodError::new(
                ErrorCode::Conflict,
                "connection.upgrade must be a connection's first request",
            ),
        ),
        other => Envelope::error(
            req.id,
            &MethodError::internal(format!("{} is not an inline method", other.spec().name)),
        ),
    }
}

/// Runs one request to its terminal envelope.
pub async fn handle(
    ctx: &Ctx,
    conn: &Connection,
    method: Method,
    req: Request,
    chat_start: Option<ChatStart>,
) -> Envelope {
    let id = req.id;
    let _gate = match method.spec().serving {
        Serving::Exclusive => Some(ctx.admin_gate.lock().await),
        Serving::Inline | Serving::Task => None,
    };
    let p = &req.params;
    let result = match method {
        Method::Ping | Method::ProtocolInfo | Method::ConnectionUpgrade => {
            return inline(method, &req);
        }
        Method::Chat => match chat_start {
            Some(start) => chat::chat(ctx, conn, id, p, start).await,
            // The read loop registers every chat it routes here.
            None => Err(MethodError::internal(
                "chat request without its registration",
            )),
        },
        Method::AgentSteer => chat::steer(ctx, conn, id, p).await,
        Method::AgentApprove => approve::approve(ctx, conn, id, p).await,
        Method::AgentCancel => chat::cancel(ctx, conn, id, p).await,
        Method::WorkspaceGet => workspace::get(ctx, id).await,
        Method::WorkspaceOpen => workspace::open(ctx, conn, id, p).await,
        Method::WorkspaceInit => workspace::init(ctx, id).await,
        Method::AgentModeGet => workspace::mode_get(ctx, id).await,
        Method::AgentModeSwitch => workspace::mode_switch(ctx, id, p).await,
        Method::RoutingGet => profile::routing_get(ctx, id).await,
        Method::RoutingSet => profile::routing_set(ctx, id, p).await,
        Method::PromptOptimize => model::prompt_optimize(ctx, id, p).await,
        Method::ScheduleList => schedule::list(ctx, id).await,
        Method::ScheduleCreate | Method::ScheduleUpdate => schedule::upsert(ctx, id, p).await,
        Method::ScheduleToggle => schedule::toggle(ctx, id, p).await,
        Method::ScheduleDelete => schedule::delete(ctx, id, p).await,
        Method::ScheduleRun => schedule::run(ctx, id, p).await,
        Method::ProfileList => profile::list(ctx, id).await,
        Method::ProfileUpsert => profile::upsert(ctx, id, p).await,
        Method::ProfileUse => profile::use_profile(ctx, id, p).await,
        Method::ProfileRemove => profile::remove(ctx, id, p).await,
        Method::ProviderList => provider::list(ctx, id).await,
        Method::ProviderUpsert => provider::upsert(ctx, id, p).await,
        Method::ProviderUse => provider::use_provider(ctx, id, p).await,
        Method::ProviderRemove => provider::remove(ctx, id, p).await,
        Method::ProviderTest => provider::test(ctx, id, p).await,
        Method::ProviderModelsFetch => provider::models_fetch(ctx, id, p).await,
        Method::ModelList => model::list(ctx, id).await,
        Method::ModelCatalog => model::catalog(ctx, id).await,
        Method::ModelSwitch => model::switch(ctx, id, p).await,
        Method::ModelTest => model::test(ctx, id, p).await,
        Method::ModelUpdate => model::update(ctx, id, p).await,
        Method::McpList => mcp::list(ctx, id).await,
        Method::McpUpsert => mcp::upsert(ctx, id, p).await,
        Method::McpRemove => mcp::remove(ctx, id, p).await,
        Method::McpReload => mcp::reload(ctx, id).await,
        Method::McpLogin => mcp::login(ctx, id, p).await,
        Method::McpLogout => mcp::logout(ctx, id, p).await,
        Method::SkillList => skill::list(ctx, id).await,
        Method::SkillImport => skill::import(ctx, id, p).await,
        Method::SkillToggle => skill::toggle(ctx, id, p).await,
        Method::PluginList => plugin::list(ctx, id, p).await,
        Method::PluginInstall => plugin::install(ctx, id, p).await,
        Method::PluginToggle => plugin::toggle(ctx, id, p).await,
        Method::PluginRemove => plugin::remove(ctx, id, p).await,
        Method::UsageGet => model::usage_get(ctx, id, p).await,
        Method::DoctorText => system::doctor_text(ctx, id, p).await,
        Method::DoctorRun => system::doctor_run(ctx, id, p).await,
        Method::ConfigStatus => system::config_status(ctx, id).await,
        Method::ProjectList => project::list(ctx, id).await,
        Method::ProjectUpsert => project::upsert(ctx, id, p).await,
        Method::ProjectRemove => project::remove(ctx, id, p).await,
        Method::SessionList => session::list(ctx, id, p).await,
        Method::SessionGet => session::get(ctx, id, p).await,
        Method::SessionUpdate => session::update(ctx, id, p).await,
        Method::SessionArchive => session::archive(ctx, conn, id, p).await,
        Method::SessionDelete => session::delete(ctx, conn, id, p).await,
        Method::SessionResume => session::resume(ctx, conn, id, p).await,
        Method::SessionNew => session::new_session(ctx, conn, id, p).await,
        Method::SessionTruncate => session::truncate(ctx, id, p).await,
        Method::SessionCompact => session::compact(ctx, id, p).await,
        Method::SessionRewind => checkpoint::rewind(ctx, id, p).await,
        Method::SessionFork => checkpoint::fork(ctx, id, p).await,
        Method::CheckpointList => checkpoint::list(ctx, id, p).await,
        Method::CheckpointDiff => checkpoint::diff(ctx, id, p).await,
        Method::SessionTimeline => session::timeline(ctx, id, p).await,
        Method::SessionSearch => search::search(ctx, id, p).await,
        Method::SessionWatch => watch::watch(ctx, conn, id, p).await,
        Method::SessionUnwatch => watch::unwatch(conn, id, p).await,
        Method::GoalGet => goal::get(ctx, id, p).await,
        Method::GoalSet => goal::set(ctx, id, p).await,
        Method::GoalClear => goal::clear(ctx, id, p).await,
        Method::BudgetGet => budget::get(ctx, id, p).await,
        Method::BudgetSet => budget::set(ctx, id, p).await,
        Method::HooksList => policy::hooks_list(ctx, id, p).await,
        Method::HooksApprove => policy::hooks_approve(ctx, id, p).await,
        Method::SessionEnd => policy::session_end(ctx, id, p).await,
        Method::PermissionsCheck => policy::permissions_check(ctx, id, p).await,
        Method::LockList => system::lock_list(ctx, id),
        Method::FactoryReset => system::factory_reset(ctx, conn, id).await,
        Method::Shutdown => system::shutdown(ctx, conn, id).await,
    };
    result.unwrap_or_else(|err| Envelope::error(id, &err))
}
