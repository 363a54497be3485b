//! The lexer of [`super`]: words with their quoting and expansions read,
//! operators and redirections; what a substitution runs is parsed as it is met.

use super::{RedirectKind, ShellCommand, Tok, Word, parse_into};

pub(super) struct Lexer<'a> {
    pub(super) s: &'a [char],
    pub(super) i: usize,
    pub(super) depth: u8,
    pub(super) out: &'a mut ShellCommand,
}

impl Lexer<'_> {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.s.get(self.i + ahead).copied()
    }

    pub(super) fn next_token(&mut self) -> Option<Tok> {
        // Blanks and line continuations.
        loop {
            match self.peek(0)? {
                ' ' | '\t' => self.i += 1,
                '\\' if self.peek(1) == Some('\n') => self.i += 2,
                '#' => {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.i += 1;
                    }
                }
                _ => break,
            }
        }
        let c = self.peek(0)?;
        let two = (c, self.peek(1).unwrap_or('\0'));
        let op = |n: usize, t: Tok, lx: &mut Self| {
            lx.i += n;
            Some(t)
        };
        match two {
            ('\n' | ';', _) => {
                if two == (';', ';') {
                    self.out.opaque("a `case` construct");
                }
                op(1, Tok::Separator, self)
            }
            ('&', '&') | ('|', '|') | ('|', '&') => op(2, Tok::Separator, self),
            ('&', '>') => {
                let n = if self.peek(2) == Some('>') { 3 } else { 2 };
                op(n, Tok::Redirect(RedirectKind::Write), self)
            }
            ('&' | '|', _) => op(1, Tok::Separator, self),
            ('<' | '>', '(') => Some(self.process_substitution()),
            ('(', _) => op(1, Tok::Open, self),
            (')', _) => op(1, Tok::Close, self),
            ('<' | '>', _) => Some(self.redirect()),
            _ => Some(self.word()),
        }
    }

    /// At `<` or `>` (any fd number was part of the word before).
    fn redirect(&mut self) -> Tok {
        let c = self.s[self.i];
        self.i += 1;
        let next = self.peek(0);
        if c == '<' {
            match next {
                Some('<') if self.peek(1) == Some('<') => {
                    self.i += 2;
                    return Tok::Redirect(RedirectKind::Read);
                }
                Some('<') => {
                    self.i += 1;
                    return Tok::HereDoc;
                }
                Some('>') => {
                    self.i += 1;
                    return Tok::Redirect(RedirectKind::Write);
                }
                Some('&') => {
                    self.i += 1;
                    return self.duplicate();
                }
                _ => return Tok::Redirect(RedirectKind::Read),
            }
        }
        match next {
            Some('>' | '|') => self.i += 1,
            Some('&') => {
                self.i += 1;
                return self.duplicate();
            }
            _ => {}
        }
        Tok::Redirect(RedirectKind::Write)
    }

    /// After `>&` / `<&`: a descriptor (`2`, `-`) writes no file; a word does.
    fn duplicate(&mut self) -> Tok {
        while self.peek(0).is_some_and(|c| c == ' ' || c == '\t') {
            self.i += 1;
        }
        let start = self.i;
        while self.peek(0).is_some_and(|c| c.is_ascii_digit() || c == '-') {
            self.i += 1;
        }
        let ended = self
            .peek(0)
            .is_none_or(|c| c.is_whitespace() || ";&|()<>".contains(c));
        if self.i > start && ended {
            return Tok::Duplicate;
        }
        self.i = start;
        Tok::Redirect(RedirectKind::Write)
    }

    fn process_substitution(&mut self) -> Tok {
        self.i += 2;
        match self.balanced(')') {
            Some(inner) => parse_into(&inner, self.depth + 1, self.out),
            None => self.out.opaque("an unterminated process substitution"),
        }
        Tok::Word(Word::unknown())
    }

    /// The text up to the `close` that matches (quotes and nesting
    /// respected), the position after it; `None` when unterminated.
    fn balanced(&mut self, close: char) -> Option<String> {
        let open = if close == ')' { '(' } else { '{' };
        let start = self.i;
        let mut depth = 1usize;
        while let Some(c) = self.peek(0) {
            match c {
                '\\' => self.i += 1,
                // `$'…'`: a backslash escapes the next character, `\'` too.
                '$' if self.peek(1) == Some('\'') => {
                    self.i += 2;
                    while let Some(c) = self.peek(0) {
                        if c == '\\' {
                            self.i += 1;
                        } else if c == '\'' {
                            break;
                        }
                        self.i += 1;
                    }
                }
                '\'' => {
                    self.i += 1;
                    while self.peek(0).is_some_and(|c| c != '\'') {
                        self.i += 1;
                    }
                }
                '"' => {
                    self.i += 1;
                    while let Some(c) = self.peek(0) {
                        if c == '\\' {
                            self.i += 1;
                        } else if c == '"' {
                            break;
                        }
                        self.i += 1;
                    }
                }
                c if c == open => depth += 1,
                c if c == close => {
                    depth -= 1;
                    if depth == 0 {
                        let inner: String = self.s[start..self.i].iter().collect();
                        self.i += 1;
                        return Some(inner);
                    }
                }
                _ => {}
            }
            self.i += 1;
        }
        None
    }

    /// At `` ` ``: the substituted script is read as commands.
    fn backtick_substitution(&mut self) {
        self.i += 1;
        match self.backtick() {
            Some(inner) => parse_into(&inner, self.depth + 1, self.out),
            None => self.out.opaque("an unterminated backtick"),
        }
    }

    /// After `` ` ``: the substituted script, `\`` unescaped.
    fn backtick(&mut self) -> Option<String> {
        let mut inner = String::new();
        while let Some(c) = self.peek(0) {
            self.i += 1;
            match c {
                '`' => return Some(inner),
                '\\' => {
                    if let Some(n) = self.peek(0) {
                        self.i += 1;
                        if !matches!(n, '`' | '\\' | '$') {
                            inner.push('\\');
                        }
                        inner.push(n);
                    }
                }
                c => inner.push(c),
            }
        }
        None
    }

    /// At `$`: reads an expansion, running what it substitutes through the
    /// parser. The word it is part of is no longer literal.
    fn dollar(&mut self) {
        self.i += 1;
        match self.peek(0) {
            Some('(') if self.peek(1) == Some('(') => {
                self.i += 2;
                match self.balanced(')') {
                    Some(inner) if !inner.contains(['$', '`']) && self.peek(0) == Some(')') => {
                        self.i += 1;
                    }
                    _ => self.out.opaque("arithmetic with substitutions"),
                }
            }
            Some('(') => {
                self.i += 1;
                match self.balanced(')') {
                    Some(inner) => parse_into(&inner, self.depth + 1, self.out),
                    None => self.out.opaque("an unterminated `$(`"),
                }
            }
            Some('{') => {
                self.i += 1;
                match self.balanced('}') {
                    Some(inner) if !inner.contains(['$', '`', '(']) => {}
                    _ => self.out.opaque("a parameter expansion with substitutions"),
                }
            }
            Some('\'') => {
                // `$'…'`: escapes decide its bytes.
                self.i += 1;
                while let Some(c) = self.peek(0) {
                    self.i += 1;
                    if c == '\\' {
                        self.i += 1;
                    } else if c == '\'' {
                        return;
                    }
                }
                self.out.opaque("an unterminated quote");
            }
            Some(c) if c == '_' || c.is_ascii_alphanumeric() => {
                while self
                    .peek(0)
                    .is_some_and(|c| c == '_' || c.is_ascii_alphanumeric())
                {
                    self.i += 1;
                }
            }
            Some('?' | '#' | '@' | '*' | '$' | '!' | '-') => self.i += 1,
            // A lone `$` is itself.
            _ => {}
        }
    }

    fn word(&mut self) -> Tok {
        let mut text = String::new();
        let mut literal = true;
        let start = self.i;
        while let Some(c) = self.peek(0) {
            match c {
                c if c.is_whitespace() => break,
                ';' | '&' | '|' | '(' | ')' => break,
                '<' | '>' => {
                    // `2>`: the descriptor is not a word.
                    if self.i > start && text.chars().all(|c| c.is_ascii_digit()) && literal {
                        return self.redirect();
                    }
                    break;
                }
                '\\' => {
                    self.i += 1;
                    match self.peek(0) {
                        Some('\n') => {}
                        Some(n) => text.push(n),
                        None => {}
                    }
                    self.i += 1;
                }
                '\'' => {
                    self.i += 1;
                    let mut closed = false;
                    while let Some(q) = self.peek(0) {
                        self.i += 1;
                        if q == '\'' {
                            closed = true;
                            break;
                        }
                        text.push(q);
                    }
                    if !closed {
                        self.out.opaque("an unterminated quote");
                    }
                }
                '"' => {
                    self.i += 1;
                    if !self.double_quoted(&mut text) {
                        literal = false;
                    }
                }
                '`' => {
                    literal = false;
                    self.backtick_substitution();
                }
                '$' => {
                    literal = false;
                    let from = self.i;
                    self.dollar();
                    text.extend(&self.s[from..self.i]);
                }
                '*' | '?' | '[' => {
                    literal = false;
                    text.push(c);
                    self.i += 1;
                }
                '{' if self.s[self.i..]
                    .iter()
                    .take_while(|c| !c.is_whitespace())
                    .any(|c| *c == ',' || *c == '.') =>
                {
                    // `{rm,-rf,x}` expands to several words.
                    literal = false;
                    text.push(c);
                    self.i += 1;
                }
                c => {
                    text.push(c);
                    self.i += 1;
                }
            }
        }
        Tok::Word(Word { text, literal })
    }

    /// Inside `"…"` (after the quote); `false` when it holds an expansion.
    fn double_quoted(&mut self, text: &mut String) -> bool {
        let mut literal = true;
        while let Some(c) = self.peek(0) {
            match c {
                '"' => {
                    self.i += 1;
                    return literal;
                }
                '\\' => {
                    self.i += 1;
                    if let Some(n) = self.peek(0) {
                        if !matches!(n, '$' | '`' | '"' | '\\' | '\n') {
                            text.push('\\');
                        }
                        if n != '\n' {
                            text.push(n);
                        }
                        self.i += 1;
                    }
                }
                '`' => {
                    literal = false;
                    self.backtick_substitution();
                }
                // `$'` is no quote inside double quotes: just a `$`.
                '$' if self.peek(1) == Some('\'') => {
                    text.push('$');
                    self.i += 1;
                }
                '$' => {
                    let from = self.i;
                    self.dollar();
                    if self.i > from + 1 {
                        literal = false;
                    }
                    text.extend(&self.s[from..self.i]);
                }
                c => {
                    text.push(c);
                    self.i += 1;
                }
            }
        }
        self.out.opaque("an unterminated quote");
        false
    }
}
