//! A server's `elicitation/create` reaches the person of the turn whose tool
//! call is in flight on that connection. Connections are shared by turns, and
//! MCP does not say which call a server request belongs to (stdio has no
//! per-request channel), so each call registers itself for its duration; a
//! request is routed to the one turn with calls in flight, and declined where
//! there is none or several turns could be meant (the form must not reach a
//! person who did not start the call).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction};
use seekclaw_tools::{Elicit, ElicitAction, ElicitAnswer, ElicitRequest};

use crate::sync::lock;

struct Call {
    id: u64,
    /// The turn (its lock owner).
    owner: String,
    elicit: Option<Arc<dyn Elicit>>,
}

/// The tool calls in flight on one connection.
#[derive(Default)]
pub(crate) struct InFlight {
    calls: Mutex<(u64, Vec<Call>)>,
    /// Questions put to a person right now.
    asking: AtomicUsize,
}

/// Counts a question while it is open.
struct Asking<'a>(&'a AtomicUsize);

impl Drop for Asking<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Ends a call's registration when dropped.
pub(crate) struct Entered {
    table: Arc<InFlight>,
    id: u64,
}

impl Drop for Entered {
    fn drop(&mut self) {
        lock(&self.table.calls).1.retain(|c| c.id != self.id);
    }
}

/// Where a request goes.
enum Route {
    To(Arc<dyn Elicit>),
    /// No call in flight, or its turn has nobody to ask.
    Nobody,
    /// Calls of several turns are in flight.
    Ambiguous,
}

impl InFlight {
    /// Registers a call of the turn `owner` until the guard drops.
    pub(crate) fn enter(
        table: &Arc<InFlight>,
        owner: &str,
        elicit: Option<Arc<dyn Elicit>>,
    ) -> Entered {
        let mut calls = lock(&table.calls);
        calls.0 += 1;
        let id = calls.0;
        calls.1.push(Call {
            id,
            owner: owner.to_string(),
            elicit,
        });
        Entered {
            table: table.clone(),
            id,
        }
    }

    /// A person is answering one of the server's questions.
    fn asking(&self) -> bool {
        self.asking.load(Ordering::Acquire) > 0
    }

    /// `work` within `limit`, a deadline that passes while a question is
    /// open being pushed back by `limit` from then.
    pub(crate) async fn within<T>(
        &self,
        limit: std::time::Duration,
        work: impl Future<Output = T>,
    ) -> Result<T, tokio::time::error::Elapsed> {
        tokio::pin!(work);
        loop {
            match tokio::time::timeout(limit, &mut work).await {
                Ok(done) => return Ok(done),
                Err(elapsed) if !self.asking() => return Err(elapsed),
                Err(_) => {}
            }
        }
    }

    fn route(&self) -> Route {
        let calls = lock(&self.calls);
        let Some(first) = calls.1.first() else {
            return Route::Nobody;
        };
        if calls.1.iter().any(|c| c.owner != first.owner) {
            return Route::Ambiguous;
        }
        // Parallel calls of one turn: its person answers, bound to the
        // oldest call (the one most likely waiting on the server).
        match &first.elicit {
            Some(e) => Route::To(e.clone()),
            None => Route::Nobody,
        }
    }
}

/// Answers one `elicitation/create` of `server`.
pub(crate) async fn answer(
    server: &str,
    table: &InFlight,
    request: ElicitRequestParams,
    cancelled: tokio_util::sync::CancellationToken,
) -> ElicitResult {
    // Only the form mode is announced; a URL request is declined.
    let ElicitRequestParams::FormElicitationParams {
        message,
        requested_schema,
        ..
    } = request
    else {
        return ElicitResult::new(ElicitationAction::Decline);
    };
    let elicit = match table.route() {
        Route::To(e) => e,
        Route::Nobody => {
            tracing::info!(
                server,
                "elicitation declined: no call in flight can answer it"
            );
            return ElicitResult::new(ElicitationAction::Decline);
        }
        Route::Ambiguous => {
            tracing::warn!(
                server,
                "elicitation declined: calls of several turns are in flight"
            );
            return ElicitResult::new(ElicitationAction::Decline);
        }
    };
    let schema = serde_json::to_value(&requested_schema).unwrap_or_default();
    let request = ElicitRequest {
        server: server.to_string(),
        message,
        requested_schema: schema,
    };
    table.asking.fetch_add(1, Ordering::AcqRel);
    let _asking = Asking(&table.asking);
    let answer = tokio::select! {
        a = elicit.elicit(request) => a,
        // The server gave up on its request (it cancelled the tool call).
        _ = cancelled.cancelled() => ElicitAnswer::cancel(),
    };
    result_of(answer)
}

fn result_of(answer: ElicitAnswer) -> ElicitResult {
    let action = match answer.action {
        ElicitAction::Accept => ElicitationAction::Accept,
        ElicitAction::Decline => ElicitationAction::Decline,
        ElicitAction::Cancel => ElicitationAction::Cancel,
    };
    let mut result = ElicitResult::new(action);
    if answer.action == ElicitAction::Accept {
        result.content = Some(serde_json::Value::Object(
            answer.content.unwrap_or_default(),
        ));
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fixed(&'static str);

    impl Elicit for Fixed {
        fn elicit(&self, _request: ElicitRequest) -> seekclaw_tools::ElicitFuture<'_> {
            let mut content = serde_json::Map::new();
            content.insert("who".into(), self.0.into());
            Box::pin(std::future::ready(ElicitAnswer {
                action: ElicitAction::Accept,
                content: Some(content),
            }))
        }
    }

    fn form() -> ElicitRequestParams {
        serde_json::from_value(serde_json::json!({
            "message": "Name?",
            "requestedSchema": {"type": "object", "properties": {"who": {"type": "string"}}}
        }))
        .unwrap()
    }

    async fn ask(table: &InFlight) -> ElicitResult {
        answer("srv", table, form(), Default::default()).await
    }

    #[tokio::test]
    async fn the_call_limit_does_not_run_while_a_person_answers() {
        let table = InFlight::default();
        let limit = std::time::Duration::from_millis(40);
        let slow = || tokio::time::sleep(limit * 4);
        assert!(table.within(limit, slow()).await.is_err());
        table.asking.fetch_add(1, Ordering::AcqRel);
        let asking = Asking(&table.asking);
        assert!(table.within(limit, slow()).await.is_ok());
        drop(asking);
        assert!(!table.asking());
    }

    #[tokio::test]
    async fn routes_to_the_one_turn_in_flight_and_declines_otherwise() {
        let table = Arc::new(InFlight::default());
        assert_eq!(ask(&table).await.action, ElicitationAction::Decline);
        let a = InFlight::enter(&table, "s1/aa", Some(Arc::new(Fixed("a"))));
        let got = ask(&table).await;
        assert_eq!(got.action, ElicitationAction::Accept);
        assert_eq!(got.content.unwrap()["who"], "a");
        // A second call of the same turn: still that turn's person.
        let a2 = InFlight::enter(&table, "s1/aa", Some(Arc::new(Fixed("a2"))));
        assert_eq!(ask(&table).await.content.unwrap()["who"], "a");
        // Another turn's call too: nobody can tell whose it is.
        let b = InFlight::enter(&table, "s2/bb", Some(Arc::new(Fixed("b"))));
        assert_eq!(ask(&table).await.action, ElicitationAction::Decline);
        drop((a, a2));
        assert_eq!(ask(&table).await.content.unwrap()["who"], "b");
        drop(b);
        // A turn without anybody to ask declines.
        let _c = InFlight::enter(&table, "s3/cc", None);
        assert_eq!(ask(&table).await.action, ElicitationAction::Decline);
    }
}
