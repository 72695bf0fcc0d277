import Foundation

/// A `--flag` that the README or a DocC article mentions for an `airlock` command, and the
/// commands the text gives it to.
///
/// Which command a flag belongs to is read as a reader would: the command written in the same
/// code span (`airlock serve --port 0`), else the commands named earlier in the same sentence
/// (`airlock record` and `airlock redact` take `--keep` — each must have it), else the last one
/// named earlier in the paragraph or table row; failing those, any command named in the paragraph
/// before a table, in the section, or in the file. A flag written after another program's name
/// (`swift test --filter`, curl's `--cacert`) is that program's, and a file that names no
/// `airlock` command is not about it.
struct OptionMention: Sendable, CustomStringConvertible {
    let file: String
    /// From 1.
    let line: Int
    let flag: String
    /// The command paths the text gives the flag to (`"serve"`, `"cassette check"`, `""` for
    /// `airlock` itself).
    let commands: [String]
    /// `true`: every command in ``commands`` must have the flag (the text says so of each);
    /// `false`: at least one (the text's context only narrows it down).
    let belongsToEach: Bool
    /// For a row of a table with a "default" column: what that column says.
    var documentedDefault: String?

    var description: String { "\(file):\(line): \(flag)" }
}

enum OptionMentions {
    /// Programs whose flags are not airlock's.
    static let otherPrograms: Set<String> = [
        "swift", "curl", "bash", "sh", "env", "git", "python3", "wrk", "nginx", "AirlockBenchmarks", "unshare", "protoc", "certutil",
    ]

    /// Every option mention of the README and the DocC articles, given the command paths
    /// `airlock` has (`"serve"`, `"cassette check"`, …).
    static func all(commands: Set<String>) -> [OptionMention] {
        Documentation.files.flatMap { file in
            let text = (try? String(contentsOf: Documentation.root.appendingPathComponent(file), encoding: .utf8)) ?? ""
            return mentions(in: text, file: file, commands: commands)
        }
    }

    // MARK: Blocks

    /// A paragraph, a table row, a heading or a line of a fenced code block.
    struct Block {
        enum Kind { case paragraph, tableRow, heading, codeLine }
        let kind: Kind
        /// The line of its first character, from 1.
        let line: Int
        let text: String
        /// For a table row: the table's header cells.
        var header: [String] = []
    }

    static func blocks(of text: String) -> [Block] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var blocks: [Block] = []
        var paragraph: [String] = []
        var paragraphStart = 0
        var tableHeader: [String]?
        func flush() {
            if !paragraph.isEmpty { blocks.append(Block(kind: .paragraph, line: paragraphStart + 1, text: paragraph.joined(separator: "\n"))) }
            paragraph = []
        }
        var index = 0
        while index < lines.count {
            let trimmed = lines[index].trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("```") {
                flush()
                let language = trimmed.dropFirst(3).trimmingCharacters(in: .whitespaces)
                index += 1
                while index < lines.count, lines[index].trimmingCharacters(in: .whitespaces) != "```" {
                    // Swift and JSON samples hold no command lines.
                    if language != "swift", language != "json" {
                        blocks.append(Block(kind: .codeLine, line: index + 1, text: lines[index]))
                    }
                    index += 1
                }
                index += 1
                continue
            }
            if trimmed.hasPrefix("|") {
                flush()
                let cells = cells(of: trimmed)
                if let header = tableHeader {
                    if !cells.allSatisfy({ $0.allSatisfy { "-: ".contains($0) } }) {
                        blocks.append(Block(kind: .tableRow, line: index + 1, text: trimmed, header: header))
                    }
                } else {
                    tableHeader = cells
                    blocks.append(Block(kind: .tableRow, line: index + 1, text: trimmed, header: []))
                }
                index += 1
                continue
            }
            tableHeader = nil
            if trimmed.hasPrefix("#") {
                flush()
                blocks.append(Block(kind: .heading, line: index + 1, text: trimmed))
            } else if trimmed.isEmpty {
                flush()
            } else {
                if paragraph.isEmpty { paragraphStart = index }
                paragraph.append(lines[index])
            }
            index += 1
        }
        flush()
        return blocks
    }

    static func cells(of row: String) -> [String] {
        var cells = row.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        if cells.first == "" { cells.removeFirst() }
        if cells.last == "" { cells.removeLast() }
        return cells
    }

    // MARK: What a block names

    /// A command of `airlock` named in a text, or another program's name.
    struct Event {
        let offset: Int
        /// The command path, or `nil` for another program.
        let command: String?
        /// Whether it stands inside a code span (or a code line).
        let inCode: Bool
    }

    /// The `airlock …` commands and other programs a text names, in order, with offsets in
    /// characters.
    static func events(in text: String, commands: Set<String>, isCode: Bool) -> [Event] {
        let characters = Array(text)
        let codeRanges = isCode ? [0..<characters.count] : codeSpans(in: characters)
        var events: [Event] = []
        let words = wordRanges(in: characters)
        for (index, range) in words.enumerated() {
            let word = String(characters[range])
            let inCode = codeRanges.contains { $0.contains(range.lowerBound) }
            if word == "airlock" {
                // `airlock serve`, `airlock cassette check`, `airlock --version`; not `airlock-ca`.
                guard range.upperBound < characters.count, characters[range.upperBound] == " " else { continue }
                let next = words.dropFirst(index + 1).prefix(2).map { String(characters[$0]) }
                if let first = next.first, first.hasPrefix("--") {
                    events.append(Event(offset: range.lowerBound, command: "", inCode: inCode))
                } else if next.count == 2, commands.contains(next.joined(separator: " ")) {
                    events.append(Event(offset: range.lowerBound, command: next.joined(separator: " "), inCode: inCode))
                } else if let first = next.first, commands.contains(first) {
                    events.append(Event(offset: range.lowerBound, command: first, inCode: inCode))
                }
            } else if otherPrograms.contains(word) || otherPrograms.contains(word.replacingOccurrences(of: "'s", with: "")) {
                events.append(Event(offset: range.lowerBound, command: nil, inCode: inCode))
            }
        }
        return events
    }

    /// Runs of characters that make a word or a flag (`airlock`, `--max-body-size`, `curl's`).
    static func wordRanges(in characters: [Character]) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var start: Int?
        for (index, character) in characters.enumerated() {
            let isWordCharacter = character.isLetter || character.isNumber || character == "-" || character == "_" || character == "'"
            if isWordCharacter, start == nil { start = index }
            if !isWordCharacter, let begun = start {
                ranges.append(begun..<index)
                start = nil
            }
        }
        if let start { ranges.append(start..<characters.count) }
        return ranges
    }

    /// The ranges of the code spans (`` `…` ``) of a paragraph.
    static func codeSpans(in characters: [Character]) -> [Range<Int>] {
        var spans: [Range<Int>] = []
        var open: Int?
        for (index, character) in characters.enumerated() where character == "`" {
            if let start = open {
                spans.append(start..<index)
                open = nil
            } else {
                open = index
            }
        }
        return spans
    }

    /// Where each sentence of a block starts: after `.`, `!`, `?` or `;` and white space before a
    /// capital letter or a code span, and at each table cell.
    static func sentenceStarts(in characters: [Character]) -> [Int] {
        var starts = [0]
        for index in characters.indices.dropFirst(2) {
            let before = characters[index - 2], gap = characters[index - 1], character = characters[index]
            if "|".contains(gap) || (".!?".contains(before) && gap.isWhitespace && (character.isUppercase || character == "`")) {
                starts.append(index)
            }
        }
        return starts
    }

    // MARK: Mentions

    static func mentions(in text: String, file: String, commands: Set<String>) -> [OptionMention] {
        let blocks = blocks(of: text)
        let eventsByBlock = blocks.map { events(in: $0.text, commands: commands, isCode: $0.kind == .codeLine) }
        func named(_ events: [Event]) -> [String] {
            var seen: [String] = []
            for case let command? in events.map(\.command) where !seen.contains(command) { seen.append(command) }
            return seen
        }
        let inFile = named(eventsByBlock.flatMap { $0 })
        guard !inFile.isEmpty else { return [] }

        var mentions: [OptionMention] = []
        var sectionStart = 0
        var paragraphBeforeTable: Int?
        for (blockIndex, block) in blocks.enumerated() {
            switch block.kind {
            case .heading:
                sectionStart = blockIndex
                paragraphBeforeTable = nil
                continue
            case .paragraph:
                paragraphBeforeTable = blockIndex
            case .tableRow, .codeLine:
                break
            }
            let characters = Array(block.text)
            let spans = block.kind == .codeLine ? [0..<characters.count] : codeSpans(in: characters)
            let sentences = sentenceStarts(in: characters)
            let events = eventsByBlock[blockIndex]
            let sectionEnd = blocks[(blockIndex + 1)...].firstIndex { $0.kind == .heading } ?? blocks.count
            let inSection = named(eventsByBlock[sectionStart..<sectionEnd].flatMap { $0 })
            let defaultColumn = block.header.firstIndex { $0.lowercased() == "default" }
            let rowCells = block.kind == .tableRow ? cells(of: block.text) : []

            for range in wordRanges(in: characters) {
                let word = String(characters[range])
                guard word.hasPrefix("--"), word.count > 2, word.dropFirst(2).first?.isLetter == true else { continue }
                let flag = String(word.prefix { $0 != "'" })
                let offset = range.lowerBound
                let line = block.line + characters[..<offset].filter { $0 == "\n" }.count
                let before = events.filter { $0.offset < offset }

                var claim: (commands: [String], each: Bool)?
                // 1. The same code span: `airlock serve --port 0`, or `swift test --filter x`.
                if let span = spans.first(where: { $0.contains(offset) }),
                    let last = before.last(where: { span.contains($0.offset) })
                {
                    guard let command = last.command else { continue }
                    claim = ([command], true)
                }
                // 2. The same sentence: every command named in it before the flag, unless another
                //    program is named after them in prose (curl's `--cacert`).
                if claim == nil {
                    let sentenceStart = sentences.last { $0 <= offset } ?? 0
                    let inSentence = before.filter { $0.offset >= sentenceStart }
                    if let last = inSentence.last(where: { $0.command != nil || !$0.inCode }), last.command == nil { continue }
                    let named = named(inSentence)
                    if !named.isEmpty { claim = (named, true) }
                }
                // 3. The last command named earlier in the paragraph or row.
                if claim == nil, let last = before.last(where: { $0.command != nil })?.command {
                    claim = ([last], true)
                }
                // 4. A table row: the paragraph that introduces the table.
                if claim == nil, block.kind == .tableRow, let paragraph = paragraphBeforeTable {
                    let named = named(eventsByBlock[paragraph])
                    if !named.isEmpty { claim = (named, false) }
                }
                // 5. The section, then the file.
                if claim == nil, !inSection.isEmpty { claim = (inSection, false) }
                let (claimed, each) = claim ?? (inFile, false)

                var mention = OptionMention(file: file, line: line, flag: flag, commands: claimed, belongsToEach: each)
                // The row's own option: a flag of its first cell, whole (`--wiremock` is not the
                // row of `--wiremock-version`).
                if let defaultColumn, defaultColumn < rowCells.count, let first = rowCells.first,
                    first.split(whereSeparator: { $0 == " " || $0 == "`" || $0 == "," }).contains(where: { $0 == flag })
                {
                    mention.documentedDefault = rowCells[defaultColumn].replacingOccurrences(of: "`", with: "")
                }
                mentions.append(mention)
            }
        }
        return mentions
    }
}
