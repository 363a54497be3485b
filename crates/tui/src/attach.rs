//! `@image.png` in a message attaches the image: each `@path` word naming an
//! existing png, jpeg, webp or gif file (relative to the chat's directory) is
//! sent in `chat`'s `images` (`{name, mediaType, data}`, reference §6.9).

use std::path::{Path, PathBuf};

use seekclaw_protocol::api::ImageInput;

/// An image file a message names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attachment {
    /// The file.
    pub path: PathBuf,
    /// Its file name.
    pub name: String,
    /// Its size in bytes.
    pub size: u64,
    /// `image/png`, …
    pub media_type: &'static str,
}

impl Attachment {
    /// How it shows: `[image: name.png 12 KB]`.
    pub fn chip(&self) -> String {
        chip(&self.name, self.size)
    }

    /// The `images[]` entry of a `chat` request.
    pub fn load(&self) -> std::io::Result<ImageInput> {
        use base64::Engine;
        let bytes = std::fs::read(&self.path)?;
        let data = base64::engine::general_purpose::STANDARD.encode(bytes);
        Ok(ImageInput {
            name: self.name.clone(),
            media_type: self.media_type.to_string(),
            data,
        })
    }
}

/// `[image: name 12 KB]`.
pub fn chip(name: &str, size: u64) -> String {
    let size = if size < 1024 {
        format!("{size} B")
    } else if size < 1024 * 1024 {
        format!("{} KB", size.div_ceil(1024))
    } else {
        format!("{:.1} MB", size as f64 / (1024.0 * 1024.0))
    };
    format!("[image: {name} {size}]")
}

/// The media type of an image file name the daemon accepts.
fn media_type(path: &str) -> Option<&'static str> {
    let ext = path.rsplit_once('.')?.1.to_ascii_lowercase();
    Some(match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "webp" => "image/webp",
        "gif" => "image/gif",
        _ => return None,
    })
}

/// The images `text`'s `@path` words name (existing files only, each once).
pub fn images_in(text: &str, root: &Path) -> Vec<Attachment> {
    let mut out: Vec<Attachment> = Vec::new();
    for word in text.split_whitespace() {
        let Some(path) = word.strip_prefix('@') else {
            continue;
        };
        // A sentence may end right after the path: `see @a.png.`
        let trimmed = path.trim_end_matches([',', ';', ':', '!', '?', ')', '.']);
        for candidate in [path, trimmed] {
            let Some(media_type) = media_type(candidate) else {
                continue;
            };
            let full = root.join(candidate);
            let Ok(meta) = std::fs::metadata(&full) else {
                continue;
            };
            if meta.is_file() && !out.iter().any(|a| a.path == full) {
                let name = full
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                out.push(Attachment {
                    path: full,
                    name,
                    size: meta.len(),
                    media_type,
                });
            }
            break;
        }
    }
    out
}

impl crate::app::App {
    /// A paste into the editor (a long one folds into one block).
    pub fn paste(&mut self, text: &str) {
        self.completion = None;
        // Pasted text at an approval prompt is a rejection reason, never a choice.
        if self.picker.is_none() && self.form_paste(text) {
            return;
        }
        if self.picker.is_none() && !self.approvals.is_empty() {
            self.open_reason();
        }
        self.editor.paste(text);
        self.refresh_attached();
    }

    /// Finds the images the prompt being typed names (shown as chips).
    pub(crate) fn refresh_attached(&mut self) {
        self.attached = match &self.root {
            // A stat per `@` word per key: cheap, and only with an `@` typed.
            Some(root) if self.editor.raw().contains(&'@') => images_in(&self.editor.text(), root),
            _ => Vec::new(),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_paths_of_existing_images_attach_once() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("img")).unwrap();
        std::fs::write(dir.path().join("img/shot.PNG"), vec![0u8; 12 * 1024]).unwrap();
        std::fs::write(dir.path().join("notes.txt"), "x").unwrap();
        let text = "see @img/shot.PNG, and @img/shot.PNG @notes.txt @missing.png me@x.png";
        let found = images_in(text, dir.path());
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].chip(), "[image: shot.PNG 12 KB]");
        assert_eq!(found[0].media_type, "image/png");
        let loaded = serde_json::to_value(found[0].load().unwrap()).unwrap();
        assert_eq!(loaded["name"], "shot.PNG");
        assert_eq!(loaded["mediaType"], "image/png");
        assert!(loaded["data"].as_str().unwrap().starts_with("AAAA"));
    }

    #[test]
    fn chips_size_in_bytes_kb_and_mb() {
        assert_eq!(chip("a.gif", 900), "[image: a.gif 900 B]");
        assert_eq!(chip("a.gif", 3 * 1024 * 1024), "[image: a.gif 3.0 MB]");
    }
}
