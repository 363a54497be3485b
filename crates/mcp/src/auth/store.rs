//! The token store: `$SEEKCLAW_HOME/mcp-auth/` (0700), one file per server
//! identity (a hash of its URL, so two names for one server share a login),
//! 0600, written atomically. Tokens live here only: never in `config.json`,
//! logs, events or errors.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use async_trait::async_trait;
use rmcp::transport::auth::{AuthError, CredentialStore, StoredCredentials};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Where a remote server stands with OAuth.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthState {
    /// No login stored and none asked for.
    None,
    /// Tokens are stored.
    Authorized,
    /// The server asked for authorization (401) and we have no tokens.
    NeedsLogin,
    /// We had tokens but the refresh was refused: the user must log in again.
    LoginRequired,
}

impl AuthState {
    /// The wire word (`mcp.list`'s `auth`).
    pub fn as_str(self) -> &'static str {
        match self {
            AuthState::None => "none",
            AuthState::Authorized => "authorized",
            AuthState::NeedsLogin => "needs_login",
            AuthState::LoginRequired => "login_required",
        }
    }
}

/// One server identity's file.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenFile {
    /// The server URL the tokens are for.
    pub url: String,
    /// The configured name at login time (for people reading the folder).
    #[serde(default)]
    pub server: String,
    /// A configured confidential client's secret, needed again to refresh.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// What rmcp keeps: client id, token response, scopes, issuer.
    #[serde(default)]
    pub credentials: Option<StoredCredentials>,
    /// The authorization server refused our refresh token.
    #[serde(default)]
    pub login_required: bool,
}

impl TokenFile {
    fn has_tokens(&self) -> bool {
        self.credentials
            .as_ref()
            .is_some_and(|c| c.token_response.is_some())
    }
}

/// The folder of token files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthStore {
    dir: PathBuf,
}

impl AuthStore {
    /// The store in `dir` (created on the first write).
    pub fn new(dir: impl Into<PathBuf>) -> AuthStore {
        AuthStore { dir: dir.into() }
    }

    /// `<home>/mcp-auth`.
    pub fn in_home(home: &Path) -> AuthStore {
        AuthStore::new(home.join("mcp-auth"))
    }

    /// The file of `url`'s identity.
    pub fn path_for(&self, url: &str) -> PathBuf {
        let digest = Sha256::digest(identity(url).as_bytes());
        let hex: String = digest.iter().take(16).map(|b| format!("{b:02x}")).collect();
        self.dir.join(format!("{hex}.json"))
    }

    /// The stored file, if any (an unreadable one counts as absent).
    pub fn load(&self, url: &str) -> Option<TokenFile> {
        let text = std::fs::read_to_string(self.path_for(url)).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Writes `file` atomically, 0600, in a 0700 folder.
    pub fn save(&self, file: &TokenFile) -> std::io::Result<()> {
        create_private_dir(&self.dir)?;
        let path = self.path_for(&file.url);
        let text = serde_json::to_vec_pretty(file).map_err(std::io::Error::other)?;
        let tmp = self
            .dir
            .join(format!(".{}.tmp{}", std::process::id(), fastrand::u32(..)));
        let mut out = private_file(&tmp)?;
        out.write_all(&text)?;
        out.sync_all()?;
        drop(out);
        std::fs::rename(&tmp, &path).inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
    }

    /// Forgets `url`'s login; whether there was one.
    pub fn remove(&self, url: &str) -> std::io::Result<bool> {
        match std::fs::remove_file(self.path_for(url)) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// What the store says about `url` (never `NeedsLogin`: only a server says that).
    pub fn state(&self, url: &str) -> AuthState {
        match self.load(url) {
            Some(f) if f.login_required => AuthState::LoginRequired,
            Some(f) if f.has_tokens() => AuthState::Authorized,
            _ => AuthState::None,
        }
    }

    /// A change marker of `url`'s file: a login from another process shows here.
    pub fn stamp(&self, url: &str) -> Option<SystemTime> {
        std::fs::metadata(self.path_for(url))
            .and_then(|m| m.modified())
            .ok()
    }

    /// rmcp's view of `url`'s file.
    pub fn credential_store(&self, url: &str, server: &str) -> FileCredentialStore {
        FileCredentialStore {
            store: self.clone(),
            url: url.to_string(),
            server: server.to_string(),
        }
    }
}

/// Trailing slashes and case of scheme/host do not make another server.
fn identity(url: &str) -> String {
    match reqwest::Url::parse(url.trim()) {
        Ok(u) => u.as_str().trim_end_matches('/').to_string(),
        Err(_) => url.trim().trim_end_matches('/').to_string(),
    }
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

fn private_file(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)
}

/// rmcp's [`CredentialStore`] over one token file.
#[derive(Debug, Clone)]
pub struct FileCredentialStore {
    store: AuthStore,
    url: String,
    server: String,
}

impl FileCredentialStore {
    fn current(&self) -> TokenFile {
        self.store.load(&self.url).unwrap_or_else(|| TokenFile {
            url: self.url.clone(),
            server: self.server.clone(),
            ..TokenFile::default()
        })
    }

    fn write(&self, file: &TokenFile) -> Result<(), AuthError> {
        // The error names the folder, never the file's content.
        self.store.save(file).map_err(|e| {
            AuthError::CredentialStoreError(format!(
                "cannot write the MCP token store {}: {e}",
                self.store.dir.display()
            ))
        })
    }

    /// Keeps a configured client secret beside the tokens (refresh needs it).
    pub fn set_client_secret(&self, secret: Option<String>) -> Result<(), AuthError> {
        let mut file = self.current();
        file.client_secret = secret;
        self.write(&file)
    }
}

#[async_trait]
impl CredentialStore for FileCredentialStore {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        Ok(self
            .store
            .load(&self.url)
            .filter(|f| !f.login_required)
            .and_then(|f| f.credentials))
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        let mut file = self.current();
        file.server = self.server.clone();
        file.credentials = Some(credentials);
        file.login_required = false;
        self.write(&file)
    }

    async fn clear(&self) -> Result<(), AuthError> {
        let mut file = self.current();
        file.credentials = None;
        self.write(&file)
    }

    /// The refresh token is dead: drop the tokens and say "log in again".
    async fn on_refresh_token_rejected(
        &self,
        _credentials: &StoredCredentials,
    ) -> Result<(), AuthError> {
        let mut file = self.current();
        if let Some(c) = file.credentials.as_mut() {
            c.token_response = None;
        }
        file.login_required = true;
        self.write(&file)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_private_and_one_per_identity() {
        let dir = tempfile::tempdir().unwrap();
        let store = AuthStore::in_home(dir.path());
        assert_eq!(
            store.path_for("http://127.0.0.1:9/mcp"),
            store.path_for("HTTP://127.0.0.1:9/mcp/")
        );
        assert_ne!(
            store.path_for("http://127.0.0.1:9/mcp"),
            store.path_for("http://127.0.0.1:9/other")
        );
        let file = TokenFile {
            url: "http://127.0.0.1:9/mcp".into(),
            login_required: true,
            ..TokenFile::default()
        };
        store.save(&file).unwrap();
        store.save(&file).unwrap();
        assert_eq!(
            store.state("http://127.0.0.1:9/mcp"),
            AuthState::LoginRequired
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&dir.path().join("mcp-auth")), 0o700);
            assert_eq!(mode(&store.path_for("http://127.0.0.1:9/mcp")), 0o600);
        }
        assert_eq!(
            std::fs::read_dir(dir.path().join("mcp-auth"))
                .unwrap()
                .count(),
            1
        );
        assert!(store.remove("http://127.0.0.1:9/mcp").unwrap());
        assert!(!store.remove("http://127.0.0.1:9/mcp").unwrap());
        assert_eq!(store.state("http://127.0.0.1:9/mcp"), AuthState::None);
    }
}
