use super::*;

fn programs(src: &str) -> Vec<String> {
    parse(src)
        .commands
        .iter()
        .map(|c| {
            c.program_words()
                .iter()
                .map(|w| w.text.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

#[test]
fn lists_pipelines_and_groups_are_split_into_commands() {
    assert_eq!(programs("npm test && rm -rf ~"), ["npm test", "rm -rf ~"]);
    assert_eq!(programs("a | b; c || d & e"), ["a", "b", "c", "d", "e"]);
    assert_eq!(programs("(cd x && make) ; { ls; }"), ["cd x", "make", "ls"]);
    assert_eq!(programs("if true; then rm x; fi"), ["true", "rm x"]);
    assert_eq!(programs("echo 'a && b' \"c; d\""), ["echo a && b c; d"]);
    assert!(parse("echo 'a && b'").opaque.is_none());
}

#[test]
fn substitutions_wrappers_and_shells_are_read_through() {
    assert_eq!(
        programs("echo $(rm -rf /)"),
        ["rm -rf /", "echo $(rm -rf /)"]
    );
    assert_eq!(programs("echo `whoami`"), ["whoami", "echo "]);
    assert_eq!(programs("diff <(ls a) <(ls b)"), ["ls a", "ls b", "diff  "]);
    assert_eq!(programs("bash -c 'git push --force'"), ["git push --force"]);
    assert_eq!(
        programs("sh -lc \"make && make install\""),
        ["make", "make install"]
    );
    assert_eq!(programs("eval rm -rf build"), ["rm -rf build"]);
    assert_eq!(
        programs("FOO=1 env BAR=2 nohup timeout 5 npm test"),
        ["npm test"]
    );
    assert_eq!(programs("find . -name x -exec rm {} \\;")[0], "rm {}");
    assert_eq!(programs("ls | xargs rm")[1], "rm ");
    // `sudo`'s command passes the rules on its own, and `sudo` itself too.
    assert_eq!(
        programs("sudo -u x npm test"),
        ["npm test", "sudo -u x npm test"]
    );
    assert_eq!(programs("time -p make"), ["make"]);
    let env = parse("LD_PRELOAD=/x.so npm test");
    assert_eq!(env.commands[0].env, ["LD_PRELOAD"]);
}

#[test]
fn what_cannot_be_read_for_certain_is_opaque() {
    for src in [
        "cat <<EOF\nrm -rf ~\nEOF",
        "for f in *; do rm $f; done",
        "$CMD --flag",
        "echo 'unterminated",
        "bash -c \"$SCRIPT\"",
        "f() { rm -rf /; }; f",
        "case x in x) rm y;; esac",
    ] {
        assert!(parse(src).opaque.is_some(), "{src}");
    }
    assert!(!parse("{rm,-rf,x}").commands[0].words[0].literal);
}

#[test]
fn redirections_record_the_files_they_write() {
    let c = parse("make > build.log 2>&1 && cat < in.txt >> /tmp/out &> ~/x");
    let writes: Vec<_> = c
        .commands
        .iter()
        .flat_map(|c| c.writes.iter().map(|w| w.text.clone()))
        .collect();
    assert_eq!(writes, ["build.log", "/tmp/out", "~/x"]);
    assert_eq!(programs("echo hi >&2"), ["echo hi"]);
    assert!(parse("echo hi 2>/dev/null").opaque.is_none());
}
