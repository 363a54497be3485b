//! How the model's indentation relates to the file's in a match, and how the
//! replacement's new lines are re-indented the same way.

/// The relation between the model's and the file's indentation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Indent {
    /// As given.
    Same,
    /// The file has this more at the start of every line.
    Add(String),
    /// The file has this less at the start of every line.
    Remove(String),
    /// One side indents with tabs, the other with spaces: columns in units of
    /// `unit`, the file's = the model's + `delta`, written with tabs when
    /// `file_tabs`.
    Columns {
        unit: usize,
        delta: isize,
        file_tabs: bool,
    },
}

/// The leading spaces and tabs of `line`.
pub(super) fn leading(line: &str) -> &str {
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

fn columns(indent: &str, unit: usize) -> isize {
    indent
        .chars()
        .map(|c| if c == '\t' { unit as isize } else { 1 })
        .sum()
}

/// The one relation every `(file, model)` indentation pair satisfies: a
/// uniform shift, or (with `tabs`) a tabs-versus-spaces conversion.
pub(super) fn relate(pairs: &[(&str, &str)], tabs: bool) -> Option<Indent> {
    if pairs.iter().all(|(f, m)| f == m) {
        return Some(Indent::Same);
    }
    let &(f0, m0) = pairs.first()?;
    if let Some(extra) = f0.strip_suffix(m0)
        && pairs.iter().all(|(f, m)| f.strip_suffix(m) == Some(extra))
    {
        return Some(Indent::Add(extra.to_string()));
    }
    if let Some(extra) = m0.strip_suffix(f0)
        && pairs.iter().all(|(f, m)| m.strip_suffix(f) == Some(extra))
    {
        return Some(Indent::Remove(extra.to_string()));
    }
    if !tabs {
        return None;
    }
    let file_tabs = pairs.iter().any(|(f, _)| f.contains('\t'));
    let model_tabs = pairs.iter().any(|(_, m)| m.contains('\t'));
    let file_spaces = pairs.iter().any(|(f, _)| f.contains(' '));
    let model_spaces = pairs.iter().any(|(_, m)| m.contains(' '));
    // Only a real difference of style: tabs on one side, spaces on the other.
    if !((file_tabs && model_spaces) || (model_tabs && file_spaces)) {
        return None;
    }
    let consistent = |unit: usize| {
        let delta = columns(f0, unit) - columns(m0, unit);
        pairs
            .iter()
            .all(|(f, m)| columns(f, unit) - columns(m, unit) == delta)
            .then_some(delta)
    };
    let found: Vec<(usize, isize)> = [4, 2, 8]
        .into_iter()
        .filter_map(|unit| consistent(unit).map(|d| (unit, d)))
        .collect();
    let (unit, delta) = found
        .iter()
        .find(|(_, d)| *d == 0)
        .or_else(|| found.first())
        .copied()?;
    Some(Indent::Columns {
        unit,
        delta,
        file_tabs,
    })
}

/// `line` (one of the replacement's new lines) indented as the file is.
pub(super) fn apply(line: &str, indent: &Indent) -> String {
    if line.trim().is_empty() {
        return line.to_string();
    }
    match indent {
        Indent::Same => line.to_string(),
        Indent::Add(extra) => format!("{extra}{line}"),
        Indent::Remove(extra) => match line.strip_prefix(extra.as_str()) {
            Some(rest) => rest.to_string(),
            None => line.trim_start_matches([' ', '\t']).to_string(),
        },
        Indent::Columns {
            unit,
            delta,
            file_tabs,
        } => {
            let lead = leading(line);
            let cols = (columns(lead, *unit) + delta).max(0) as usize;
            let indent = if *file_tabs {
                format!("{}{}", "\t".repeat(cols / unit), " ".repeat(cols % unit))
            } else {
                " ".repeat(cols)
            };
            format!("{indent}{}", &line[lead.len()..])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_uniform_shift_either_way() {
        let add = relate(&[("        ", "    "), ("    ", "")], false);
        assert_eq!(add, Some(Indent::Add("    ".into())));
        assert_eq!(apply("  x", &add.unwrap()), "      x");
        let remove = relate(&[("", "  "), ("  ", "    ")], false);
        assert_eq!(remove, Some(Indent::Remove("  ".into())));
        assert_eq!(relate(&[("  ", ""), ("    ", "")], false), None);
    }

    #[test]
    fn tabs_against_spaces_learn_the_unit() {
        let rel = relate(&[("\t", "    "), ("\t\t", "        ")], true).unwrap();
        assert_eq!(
            rel,
            Indent::Columns {
                unit: 4,
                delta: 0,
                file_tabs: true
            }
        );
        assert_eq!(apply("            deep", &rel), "\t\t\tdeep");
        let rel = relate(&[("  ", "\t"), ("    ", "\t\t")], true).unwrap();
        assert_eq!(apply("\t\t\tx", &rel), "      x");
        assert_eq!(relate(&[("\t", "    ")], false), None);
    }
}
