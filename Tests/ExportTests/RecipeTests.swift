import Foundation
import ImageCore
import Export
import Render
import Testing

/// Recipe files and the plan a journal stores: every value checked as it is read.
@Suite struct RecipeTests {
    @Test("a recipe names the path of a value out of range")
    func recipePath() throws {
        let json = #"{"operations":[{"op":"blur","sigma":1},{"op":"grayscale"},{"op":"watermark","file":"m.png","margin":3000000000}]}"#
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("kiln-recipe-\(UUID().uuidString).json").path
        try json.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        #expect(throws: RenderError.invalidRecipe(path: file, problem: "operations[2].margin: must be 0…2147483647, not 3000000000")) {
            try Recipe.load(contentsOf: file)
        }
    }

    /// The decoder says only "not valid JSON" of a fraction where a whole number is read, takes the first of two
    /// values of one key without a word, and names no value of an enumeration: each is said, at its path.
    @Test("a recipe names the number, the duplicate key or the values it is about", arguments: [
        (#"{"operations":[{"op":"blur","sigma":2.5},{"op":"resize","width":100.5}]}"#,
         "operations[1].width: must be a whole number, not 100.5"),
        (#"{"operations":[{"op":"resize","width":1e20}]}"#, "operations[0].width: 1e20 is out of range"),
        (#"{"operations":[{"op":"resize","width":1e400}]}"#, "operations[0].width: 1e400 is out of range"),
        // Numbers Foundation's parse makes another (0, a decimal): named as written (they named no place).
        (#"{"operations":[{"op":"blur","sigma":1e-400}]}"#, "operations[0].sigma: 1e-400 is out of range"),
        (#"{"operations":[{"op":"resize","width":100.00000000000001}]}"#,
         "operations[0].width: must be a whole number, not 100.00000000000001"),
        // A key given twice is said first, not a key the other one's operation does not know.
        (#"{"operations":[{"op":"grayscale","op":"blur","sigma":1}]}"#, "operations[0].op: given twice"),
        (#"{"operations":[null]}"#, "operations[0]: null is no value"),
        // Foundation takes a comma before a closing bracket; JSON has none (a recipe read elsewhere would fail).
        (#"{"operations":[],}"#, "the top level: a comma before } (JSON allows none)"),
        (#"{"operations":[{"op":"grayscale"},]}"#, "operations: a comma before ] (JSON allows none)"),
        (#"{"operations":[{"op":"watermark","file":"m.png\u0000x"}]}"#,
         "operations[0].file: must not hold a NUL character (no file name can)"),
        (#"{"output":{"quality":85.5}}"#, "output.quality: must be a whole number, not 85.5"),
        (#"{"operations":[{"op":"resize","width":100, "width":200}]}"#, "operations[0].width: given twice"),
        (#"{"operations":[{"op":"resize","width":5,"w\u0069dth":6}]}"#, "operations[0].width: given twice"),
        (#"{"output":{"level":6},"output":{"level":2}}"#, "output: given twice"),
        (#"{"operations":[{"op":"flip","axis":"x"}]}"#, #"operations[0].axis: "x" is not one of h, v"#),
        (#"{"operations":[{"op":"resize","width":5,"filter":"cubic"}]}"#,
         #"operations[0].filter: "cubic" is not one of lanczos3, bilinear, nearest"#),
        (#"{"output":{"subsample":"422"}}"#, #"output.subsample: "422" is not one of 420, 444"#),
        (#"{"operations":[{"op":"resize","fit":"a\"b","width":5}]}"#, #"operations[0].fit: "a\"b" is not one of inside, cover, fill"#),
        // A null was taken as an omitted key: `"operations": null` ran none without a word.
        (#"{"operations":null}"#, "operations: null is no value (leave the key out for its default)"),
        (#"{"operations":[{"op":"resize","width":5,"fit":null}]}"#, "operations[0].fit: null is no value (leave the key out for its default)"),
        (#"{"output":{"format":"png","level":null}}"#, "output.level: null is no value (leave the key out for its default)"),
        // Two bad numbers: one is named (the other once it is mended), not the message that names none.
        (#"{"operations":[{"op":"resize","width":100.5,"height":3.5}]}"#, "operations[0].width: must be a whole number, not 100.5"),
    ])
    func recipeProblems(json: String, problem: String) throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("kiln-recipe-\(UUID().uuidString).json").path
        try json.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        #expect(throws: RenderError.invalidRecipe(path: file, problem: problem)) { try Recipe.load(contentsOf: file) }
    }

    /// A list of no kinds keeps none, as `["none"]` (it was refused as the unknown kind ""); on the command line an
    /// empty `--keep` is said to be empty.
    @Test func anEmptyKeepListKeepsNone() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("kiln-recipe-\(UUID().uuidString).json").path
        try #"{"output":{"metadata":{"keep":[]}}}"#.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        #expect(try Recipe.load(contentsOf: file).output?.metadata?.selection == [])
        guard case .failure(let problem) = MetadataSelection.parse(" ") else { Issue.record("an empty list was taken"); return }
        #expect(problem.description == "the list of kinds is empty (name them, or none to keep none)")
    }

    /// The decoder reads a recipe with a byte-order mark, or in UTF-16, which the duplicate-key scan read as a word
    /// and stopped at: a recipe Windows Notepad saved took one of two widths without a word.
    @Test("a duplicate key is found whatever the recipe's encoding", arguments: ["utf8-bom", "utf16le", "utf16be"])
    func duplicateKeyInAnyEncoding(encoding: String) throws {
        let json = #"{"operations":[{"op":"resize","width":100,"width":200}]}"#
        let bytes: [UInt8] = switch encoding {
        case "utf8-bom": [0xEF, 0xBB, 0xBF] + Array(json.utf8)
        case "utf16le": [0xFF, 0xFE] + json.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        default: json.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("kiln-recipe-\(UUID().uuidString).json").path
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        #expect(throws: RenderError.invalidRecipe(path: file, problem: "operations[0].width: given twice")) {
            try Recipe.load(contentsOf: file)
        }
    }

    /// A recipe in UTF-32 with its byte-order mark is read as in UTF-8: it was refused as "a number does not fit its
    /// value", with no number in it (the decoder takes UTF-32 only without a mark).
    @Test(arguments: [true, false])
    func aUTF32RecipeWithItsMarkIsRead(littleEndian: Bool) throws {
        let json = #"{"operations":[{"op":"blur","sigma":2}]}"#
        let units = json.unicodeScalars.flatMap { scalar in
            (0..<4).map { UInt8((scalar.value >> (8 * (littleEndian ? $0 : 3 - $0))) & 0xFF) }
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("kiln-recipe-\(UUID().uuidString).json").path
        try Data((littleEndian ? [0xFF, 0xFE, 0, 0] : [0, 0, 0xFE, 0xFF]) + units).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        #expect(try Recipe.load(contentsOf: file).operations.count == 1)
    }

    /// The shortest recipes, `{}` and `{} ` (no operations, default output), are valid: the encoding check read four
    /// bytes of a file that had fewer, and kiln crashed (SIGILL).
    @Test("a recipe of two or three bytes is read", arguments: ["{}", "{} ", "{}\n"])
    func tinyRecipe(json: String) throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("kiln-recipe-\(UUID().uuidString).json").path
        try json.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        #expect(try Recipe.load(contentsOf: file).operations.isEmpty)
    }

    @Test("a stored plan is checked when decoded (what kiln resume reads)")
    func storedPlan() throws {
        for json in [#"{"operations":[{"op":"blur","sigma":1e30}],"level":6}"#, #"{"operations":[],"level":12}"#] {
            #expect(throws: DecodingError.self, "\(json)") { try JSONDecoder().decode(ExportPlan.self, from: Data(json.utf8)) }
        }
        let plan = ExportPlan(operations: [.blur(Blur(sigma: 2))], level: 9)
        #expect(try JSONDecoder().decode(ExportPlan.self, from: JSONEncoder().encode(plan)) == plan)
    }
}
