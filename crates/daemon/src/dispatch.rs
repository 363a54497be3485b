//! Method → handler. The match is exhaustive over the protocol's method table, so a
//! listed method without a handler does not compile.

use std::sync::Arc;

use seekclaw_protocol::{
    Envelope, ErrorCode, Method, MethodError, ProtocolInfo, Request, Serving, event,
};

use crate::chats::ChatStart;
use crate::connection::Connection;
use crate::daemon::Daemon;
use crate::handlers::{
    approve, chat, goal, mcp, model, profile, project, provider, schedule, search, session, skill,
    system, watch, workspace,
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
    daemon: &Arc<Daemon>,
    conn: &Arc<Connection>,
    method: Method,
    req: Request,
    chat_start: Option<ChatStart>,
) -> Envelope {
    let id = req.id;
    let _gate = match method.spec().serving {
        Serving::Exclusive => Some(daemon.admin_gate.lock().await),
        Serving::Inline | Serving::Task => None,
    };
    let d = daemon.as_ref();
    let p = &req.params;
    let result = match method {
        Method::Ping | Method::ProtocolInfo | Method::ConnectionUpgrade => {
            return inline(method, &req);
        }
        Method::Chat => match chat_start {
            Some(start) => chat::chat(daemon, conn, id, p, start).await,
            // The read loop registers every chat it routes here.
            None => Err(MethodError::internal(
                "chat request without its registration",
            )),
        },
        Method::AgentSteer => chat::steer(d, conn, id, p).await,
        Method::AgentApprove => approve::approve(d, conn, id, p).await,
        Method::AgentCancel => chat::cancel(d, conn, id, p).await,
        Method::WorkspaceGet => workspace::get(d, id).await,
        Method::WorkspaceOpen => workspace::open(d, conn, id, p).await,
        Method::WorkspaceInit => workspace::init(d, id).await,
        Method::AgentModeGet => workspace::mode_get(d, id).await,
        Method::AgentModeSwitch => workspace::mode_switch(d, id, p).await,
        Method::RoutingGet => profile::routing_get(d, id).await,
        Method::RoutingSet => profile::routing_set(d, id, p).await,
        Method::PromptOptimize => model::prompt_optimize(d, id, p).await,
        Method::ScheduleList => schedule::list(d, id).await,
        Method::ScheduleCreate | Method::ScheduleUpdate => schedule::upsert(d, id, p).await,
        Method::ScheduleToggle => schedule::toggle(d, id, p).await,
        Method::ScheduleDelete => schedule::delete(d, id, p).await,
        Method::ScheduleRun => schedule::run(daemon, id, p).await,
        Method::ProfileList => profile::list(d, id).await,
        Method::ProfileUpsert => profile::upsert(d, id, p).await,
        Method::ProfileUse => profile::use_profile(d, id, p).await,
        Method::ProfileRemove => profile::remove(d, id, p).await,
        Method::ProviderList => provider::list(d, id).await,
        Method::ProviderUpsert => provider::upsert(d, id, p).await,
        Method::ProviderUse => provider::use_provider(d, id, p).await,
        Method::ProviderRemove => provider::remove(d, id, p).await,
        Method::ProviderTest => provider::test(d, id, p).await,
        Method::ProviderModelsFetch => provider::models_fetch(d, id, p).await,
        Method::ModelList => model::list(d, id).await,
        Method::ModelCatalog => model::catalog(d, id).await,
        Method::ModelSwitch => model::switch(d, id, p).await,
        Method::ModelTest => model::test(d, id, p).await,
        Method::ModelUpdate => model::update(d, id, p).await,
        Method::McpList => mcp::list(d, id).await,
        Method::McpUpsert => mcp::upsert(d, id, p).await,
        Method::McpRemove => mcp::remove(d, id, p).await,
        Method::McpReload => mcp::reload(d, id).await,
        Method::SkillList => skill::list(d, id).await,
        Method::SkillImport => skill::import(d, id, p).await,
        Method::SkillToggle => skill::toggle(d, id, p).await,
        Method::UsageGet => model::usage_get(d, id, p).await,
        Method::DoctorText => system::doctor_text(d, id, p).await,
        Method::DoctorRun => system::doctor_run(d, id, p).await,
        Method::ConfigStatus => system::config_status(d, id),
        Method::ProjectList => project::list(d, id).await,
        Method::ProjectUpsert => project::upsert(d, id, p).await,
        Method::ProjectRemove => project::remove(d, id, p).await,
        Method::SessionList => session::list(d, id, p).await,
        Method::SessionGet => session::get(d, id, p).await,
        Method::SessionUpdate => session::update(d, id, p).await,
        Method::SessionArchive => session::archive(d, conn, id, p).await,
        Method::SessionDelete => session::delete(d, conn, id, p).await,
        Method::SessionResume => session::resume(d, conn, id, p).await,
        Method::SessionNew => session::new_session(d, conn, id, p).await,
        Method::SessionTruncate => session::truncate(d, id, p).await,
        Method::SessionCompact => session::compact(d, id, p).await,
        Method::SessionTimeline => session::timeline(d, id, p).await,
        Method::SessionSearch => search::search(d, id, p).await,
        Method::SessionWatch => watch::watch(d, conn, id, p).await,
        Method::SessionUnwatch => watch::unwatch(conn, id, p).await,
        Method::GoalGet => goal::get(d, id, p).await,
        Method::GoalSet => goal::set(d, id, p).await,
        Method::GoalClear => goal::clear(d, id, p).await,
        Method::LockList => system::lock_list(d, id),
        Method::FactoryReset => system::factory_reset(d, conn, id).await,
        Method::Shutdown => system::shutdown(d, conn, id).await,
    };
    result.unwrap_or_else(|err| Envelope::error(id, &err))
}
