//! Aligned columns under a heading, as every `… list` command prints them:
//! two spaces between columns, the last column unpadded (titles and names
//! may be long), trailing blanks trimmed.

use std::io::Write;

/// Writes `heading` and `rows` as aligned columns. Widths count characters.
pub fn write_table<const N: usize>(
    out: &mut impl Write,
    heading: [&str; N],
    rows: &[[String; N]],
) -> std::io::Result<()> {
    let heading = heading.map(String::from);
    let mut widths = [0usize; N];
    for row in std::iter::once(&heading).chain(rows) {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    for row in std::iter::once(&heading).chain(rows) {
        let mut line = String::new();
        for (i, (w, cell)) in widths.iter().zip(row).enumerate() {
            if i + 1 == N {
                line.push_str(cell);
            } else {
                line.push_str(&format!("{cell:<w$}  "));
            }
        }
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_align_under_the_heading_and_the_last_is_not_padded() {
        let mut out = Vec::new();
        let rows = [
            ["a".to_string(), "long value".to_string(), "x".to_string()],
            ["bbbb".to_string(), "v".to_string(), String::new()],
        ];
        write_table(&mut out, ["ID", "VALUE", "NAME"], &rows).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "ID    VALUE       NAME\na     long value  x\nbbbb  v\n"
        );
    }
}
