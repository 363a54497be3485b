//! MCP OAuth against a real OAuth 2.1 authorization server on loopback: the
//! official TypeScript SDK's `mcpAuthRouter` + `requireBearerAuth` in front of
//! a Streamable HTTP MCP server (crates/testkit/fixtures/oauth_mcp_server.mjs).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use seekclaw_config::McpOAuth;
use seekclaw_mcp::auth::{AuthState, AuthStore, LoginTarget, begin_login};
use seekclaw_mcp::{Connection, McpError, ServerSpec, Transport};
use seekclaw_testkit::oauth_server::{OAuthServer, oauth_http};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

const T: Duration = Duration::from_secs(30);

fn spec(url: &str) -> ServerSpec {
    ServerSpec {
        name: "secure".into(),
        transport: Transport::Http {
            url: url.into(),
            headers: Default::default(),
        },
        cwd: std::env::temp_dir(),
    }
}

/// Logs in as a user whose browser approves at once: the authorization URL is
/// followed (redirects included) back to our loopback listener.
async fn login(store: &AuthStore, fixture: &OAuthServer) {
    let target = LoginTarget {
        server: "secure".into(),
        url: fixture.url().to_string(),
        oauth: McpOAuth::default(),
    };
    let pending = begin_login(store, target).await.unwrap();
    let auth_url = pending.auth_url.clone();
    assert!(
        auth_url.contains("code_challenge_method=S256"),
        "{auth_url}"
    );
    assert!(auth_url.contains("state="), "{auth_url}");
    let browser = tokio::spawn(async move { reqwest::get(auth_url).await.map(|r| r.status()) });
    pending.finish(store, T).await.unwrap();
    assert!(browser.await.unwrap().unwrap().is_success());
}

async fn call_whoami(conn: &Connection) -> Result<String, McpError> {
    let result = conn.caller().call("whoami_oauth", Map::new()).await?;
    Ok(serde_json::to_value(&result.content).unwrap().to_string())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_wrong_pkce_verifier_is_refused_by_the_authorization_server() {
    let fixture = oauth_http(3600).unwrap();
    let redirect = "http://127.0.0.1:9/callback";
    let registered = fixture
        .request(
            "POST",
            "/register",
            &[("content-type", "application/json")],
            &json!({
                "redirect_uris": [redirect], "token_endpoint_auth_method": "none",
                "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"]
            })
            .to_string(),
        )
        .unwrap();
    assert_eq!(registered.status, 201, "{}", registered.body);
    let client: Value = serde_json::from_str(&registered.body).unwrap();
    let client_id = client["client_id"].as_str().unwrap();
    let verifier = "the-right-verifier-0123456789-0123456789-0123456789";
    let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
    let authorize = fixture
        .request(
            "GET",
            &format!(
                "/authorize?response_type=code&client_id={client_id}&redirect_uri={}&code_challenge={challenge}&code_challenge_method=S256&state=s1",
                urlencode(redirect)
            ),
            &[],
            "",
        )
        .unwrap();
    assert_eq!(authorize.status, 302, "{}", authorize.body);
    let location = reqwest::Url::parse(authorize.header("location").unwrap()).unwrap();
    let code = location
        .query_pairs()
        .find(|(k, _)| k == "code")
        .unwrap()
        .1
        .into_owned();
    let exchange = |verifier: &str| {
        fixture
            .request(
                "POST",
                "/token",
                &[("content-type", "application/x-www-form-urlencoded")],
                &format!(
                    "grant_type=authorization_code&code={code}&code_verifier={verifier}&client_id={client_id}&redirect_uri={}",
                    urlencode(redirect)
                ),
            )
            .unwrap()
    };
    let wrong = exchange("a-wrong-verifier-0123456789-0123456789-0123456789");
    assert_eq!(wrong.status, 400, "{}", wrong.body);
    assert!(wrong.body.contains("invalid_grant"), "{}", wrong.body);
    // The same code with the right verifier works: the refusal was the verifier's.
    let right = exchange(verifier);
    assert_eq!(right.status, 200, "{}", right.body);
    assert!(right.body.contains("access_token"), "{}", right.body);
}

fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn discovery_registration_login_refresh_and_a_refused_refresh() {
    let fixture = oauth_http(2).unwrap();
    let home = tempfile::tempdir().unwrap();
    let store = AuthStore::in_home(home.path());
    let url = fixture.url().to_string();

    // No login: the server's 401 is "needs a login", not a broken server.
    let err = Connection::open_with_auth(&spec(&url), T, Some(&store))
        .await
        .err()
        .expect("a 401 server must not connect without a login");
    assert!(
        matches!(&err, McpError::NeedsLogin(m) if m.contains("seekclaw mcp login secure")),
        "{err:?}"
    );

    login(&store, &fixture).await;
    assert_eq!(
        fixture.stat("registrations"),
        1,
        "dynamic client registration"
    );
    assert_eq!(fixture.stat("codeExchanges"), 1);
    assert_eq!(store.state(&url), AuthState::Authorized);
    let conn = Connection::open_with_auth(&spec(&url), T, Some(&store))
        .await
        .unwrap();
    assert_eq!(conn.tools[0].name, "whoami_oauth");
    assert!(
        call_whoami(&conn)
            .await
            .unwrap()
            .contains("authorized client")
    );

    // Past the 2 s lifetime the stored token is refreshed before it is sent.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert!(
        call_whoami(&conn)
            .await
            .unwrap()
            .contains("authorized client")
    );
    assert!(fixture.stat("refreshes") >= 1, "{:?}", fixture.stats());

    // A token the server rejects is refreshed once on the 401 and the call retried.
    let refreshes = fixture.stat("refreshes");
    fixture.admin("expire-access").unwrap();
    assert!(
        call_whoami(&conn)
            .await
            .unwrap()
            .contains("authorized client")
    );
    assert!(fixture.stat("refreshes") > refreshes);

    // The refresh token dies: the call fails and the login is marked for renewal.
    fixture.admin("revoke-refresh").unwrap();
    fixture.admin("expire-access").unwrap();
    assert!(call_whoami(&conn).await.is_err());
    assert!(fixture.stat("refreshRefused") >= 1);
    assert_eq!(store.state(&url), AuthState::LoginRequired);
    let err = Connection::open_with_auth(&spec(&url), T, Some(&store))
        .await
        .err()
        .expect("a refused refresh must not connect");
    assert!(
        matches!(&err, McpError::NeedsLogin(m) if m.contains("log in again")),
        "{err:?}"
    );

    // Logging in again heals it.
    login(&store, &fixture).await;
    let conn = Connection::open_with_auth(&spec(&url), T, Some(&store))
        .await
        .unwrap();
    assert!(
        call_whoami(&conn)
            .await
            .unwrap()
            .contains("authorized client")
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_redirect_with_a_wrong_state_is_ignored() {
    let fixture = oauth_http(3600).unwrap();
    let home = tempfile::tempdir().unwrap();
    let store = AuthStore::in_home(home.path());
    let target = LoginTarget {
        server: "secure".into(),
        url: fixture.url().to_string(),
        oauth: McpOAuth::default(),
    };
    let pending = begin_login(&store, target).await.unwrap();
    let port = pending.port().unwrap();
    let auth_url = pending.auth_url.clone();
    let browser = tokio::spawn(async move {
        // A forged redirect first: refused, and the login keeps waiting.
        let forged = reqwest::get(format!(
            "http://127.0.0.1:{port}/callback?code=x&state=forged"
        ))
        .await
        .unwrap();
        assert_eq!(forged.status(), 400);
        reqwest::get(auth_url).await.unwrap().status()
    });
    pending.finish(&store, T).await.unwrap();
    assert!(browser.await.unwrap().is_success());
    assert_eq!(store.state(fixture.url()), AuthState::Authorized);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_legacy_sse_server_logs_in_and_gets_the_bearer_on_stream_and_posts() {
    let fixture = oauth_http(3600).unwrap();
    let home = tempfile::tempdir().unwrap();
    let store = AuthStore::in_home(home.path());
    let url = fixture.url().replace("/mcp", "/sse");
    let sse = ServerSpec {
        name: "legacy".into(),
        transport: Transport::Sse {
            url: url.clone(),
            headers: Default::default(),
        },
        cwd: std::env::temp_dir(),
    };
    let err = Connection::open_with_auth(&sse, T, Some(&store))
        .await
        .err()
        .expect("a guarded event stream must not connect without a login");
    assert!(matches!(err, McpError::NeedsLogin(_)), "{err:?}");
    let target = LoginTarget {
        server: "legacy".into(),
        url: url.clone(),
        oauth: McpOAuth::default(),
    };
    let pending = begin_login(&store, target).await.unwrap();
    let auth_url = pending.auth_url.clone();
    let browser = tokio::spawn(async move { reqwest::get(auth_url).await.map(|r| r.status()) });
    pending.finish(&store, T).await.unwrap();
    assert!(browser.await.unwrap().unwrap().is_success());
    let conn = Connection::open_with_auth(&sse, T, Some(&store))
        .await
        .unwrap();
    assert!(
        call_whoami(&conn)
            .await
            .unwrap()
            .contains("authorized client")
    );
}
