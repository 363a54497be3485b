//! The patch format as a Lark grammar, for providers that constrain a
//! freeform tool's input to one (OpenAI's custom tools): the model can then
//! only produce patches the parser reads.

/// `apply_patch`'s input grammar (Lark syntax).
pub const PATCH_GRAMMAR: &str = r#"start: begin_patch file_op+ end_patch
begin_patch: "*** Begin Patch" LF
end_patch: "*** End Patch" LF?

file_op: add_file | delete_file | update_file
add_file: "*** Add File: " path LF added_line*
delete_file: "*** Delete File: " path LF
update_file: "*** Update File: " path LF move_to? changes?

move_to: "*** Move to: " path LF
changes: (hunk_header | hunk_line)+ end_of_file?
hunk_header: ("@@" | "@@ " /(.+)/) LF
hunk_line: (" " | "-" | "+") /(.*)/ LF
added_line: "+" /(.*)/ LF
end_of_file: "*** End of File" LF

path: /(.+)/

%import common.LF
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_every_marker_the_parser_reads() {
        for marker in [
            "*** Begin Patch",
            "*** End Patch",
            "*** Add File: ",
            "*** Delete File: ",
            "*** Update File: ",
            "*** Move to: ",
            "*** End of File",
            "\"@@ \"",
        ] {
            assert!(PATCH_GRAMMAR.contains(marker), "{marker}");
        }
        assert!(PATCH_GRAMMAR.starts_with("start: "));
    }
}
