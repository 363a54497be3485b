//! What `seekclaw provider add` asks for when a flag is left out: the API key
//! (hidden on a terminal, or one line of stdin with `--api-key-stdin`; never
//! from the environment) and, for a custom provider without `--model`, the
//! models the endpoint lists (`GET /models`), picked by number.

use std::io::{BufRead, IsTerminal, Write};

use anyhow::{Context, Result, bail};
use seekclaw_config::Provider;
use seekclaw_providers::models::LIST_TIMEOUT;

/// Where the key comes from when `--api-key` is not given.
pub enum KeySource {
    /// One line of standard input (`--api-key-stdin`).
    Stdin,
    /// Ask on the terminal without echo, if there is one.
    Terminal,
}

/// `url` when it is an http(s) URL with a host; a clear error otherwise (a
/// bare `localhost:8080` would fail later, at the first turn, less clearly).
pub fn check_base_url(url: &str) -> Result<()> {
    let trimmed = url.trim();
    let rest = trimmed
        .strip_prefix("https://")
        .or_else(|| trimmed.strip_prefix("http://"));
    match rest {
        Some(rest) if !rest.is_empty() && !rest.starts_with('/') => Ok(()),
        Some(_) => bail!("--base-url \"{trimmed}\" has no host"),
        None => bail!(
            "--base-url must start with http:// or https:// (got \"{trimmed}\"), e.g. http://localhost:8080/v1"
        ),
    }
}

/// Whether a provider at `base_url` is local (Ollama, LM Studio, vLLM on this
/// machine), where no key is asked for.
pub fn is_local(base_url: &str) -> bool {
    let authority = base_url
        .trim()
        .trim_start_matches("https://")
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap_or_default();
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => authority.split(':').next().unwrap_or_default(),
    };
    matches!(host, "localhost" | "::1" | "0.0.0.0") || host.starts_with("127.")
}

/// The key to store: read from stdin, or asked without echo on a terminal.
/// `None` keeps what is stored (or sets none).
pub fn read_key(source: KeySource, provider: &str) -> Result<Option<String>> {
    match source {
        KeySource::Stdin => {
            let mut line = String::new();
            std::io::stdin()
                .lock()
                .read_line(&mut line)
                .context("cannot read the API key from stdin")?;
            let key = line.trim();
            if key.is_empty() {
                bail!("--api-key-stdin: standard input held no key");
            }
            Ok(Some(key.to_string()))
        }
        KeySource::Terminal => {
            if !std::io::stdin().is_terminal() {
                return Ok(None);
            }
            let key = rpassword::prompt_password(format!(
                "API key for {provider} (input hidden; Enter to skip or keep the stored one): "
            ))
            .context("cannot read the API key from the terminal")?;
            Ok(Some(key.trim().to_string()).filter(|k| !k.is_empty()))
        }
    }
}

/// The models of a custom provider named without `--model`: listed by the
/// endpoint, then picked on a terminal; elsewhere an error naming them.
pub fn pick_models(endpoint: &Provider) -> Result<Vec<String>> {
    let listed = list_models(endpoint)?;
    if !std::io::stdin().is_terminal() {
        bail!(
            "{} lists these models: {}; name the ones to use with --model",
            endpoint.base_url,
            listed.join(", ")
        );
    }
    let mut err = std::io::stderr().lock();
    writeln!(err, "{} offers {} models:", endpoint.base_url, listed.len())?;
    for (i, m) in listed.iter().enumerate() {
        writeln!(err, "  {:>3}  {m}", i + 1)?;
    }
    loop {
        write!(err, "Models to use (numbers, e.g. 1 or 1,3; Enter for 1): ")?;
        err.flush()?;
        let mut line = String::new();
        if std::io::stdin().lock().read_line(&mut line)? == 0 {
            bail!("no models picked");
        }
        match choose(&listed, &line) {
            Ok(picked) => return Ok(picked),
            Err(e) => writeln!(err, "{e}")?,
        }
    }
}

/// The entries of `listed` named by the numbers in `answer` (blank: the first).
fn choose(listed: &[String], answer: &str) -> Result<Vec<String>> {
    let answer = answer.trim();
    if answer.is_empty() {
        return Ok(listed.iter().take(1).cloned().collect());
    }
    let mut picked = Vec::new();
    for part in answer.split([',', ' ']).filter(|p| !p.is_empty()) {
        let n: usize = part
            .parse()
            .ok()
            .filter(|n| (1..=listed.len()).contains(n))
            .with_context(|| format!("\"{part}\" is not a number from 1 to {}", listed.len()))?;
        let id = listed[n - 1].clone();
        if !picked.contains(&id) {
            picked.push(id);
        }
    }
    Ok(picked)
}

/// `GET /models` of `endpoint`, as the daemon's `provider.models.fetch` does.
fn list_models(endpoint: &Provider) -> Result<Vec<String>> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("tokio")?;
    let pool = seekclaw_providers::transport::HttpPool::new();
    let url = seekclaw_providers::models::models_url(endpoint);
    runtime
        .block_on(seekclaw_providers::models::list_models(
            &pool,
            endpoint,
            None,
            LIST_TIMEOUT,
        ))
        .map_err(|e| {
            anyhow::anyhow!("cannot list the models of {url}: {e}; name them with --model")
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_need_an_http_scheme_and_a_host() {
        assert!(check_base_url("http://localhost:8080/v1").is_ok());
        assert!(check_base_url(" https://api.example.com ").is_ok());
        let e = check_base_url("localhost:8080").unwrap_err().to_string();
        assert!(e.contains("must start with http:// or https://"), "{e}");
        assert!(check_base_url("ftp://h").is_err());
        assert!(check_base_url("http://").is_err());
    }

    #[test]
    fn local_endpoints_are_told_apart() {
        assert!(is_local("http://localhost:11434/v1"));
        assert!(is_local("http://127.0.0.1:1234"));
        assert!(is_local("http://[::1]:8000/v1"));
        assert!(!is_local("https://api.deepseek.com"));
    }

    #[test]
    fn picks_are_numbers_in_range_and_blank_is_the_first() {
        let listed = vec!["a".to_string(), "b".to_string(), "c".to_string()];
        assert_eq!(choose(&listed, "\n").unwrap(), ["a"]);
        assert_eq!(choose(&listed, "3, 1 3").unwrap(), ["c", "a"]);
        assert!(choose(&listed, "4").is_err());
        assert!(choose(&listed, "x").is_err());
    }
}
