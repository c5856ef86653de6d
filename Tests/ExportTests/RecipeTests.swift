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

    @Test("a stored plan is checked when decoded (what kiln resume reads)")
    func storedPlan() throws {
        for json in [#"{"operations":[{"op":"blur","sigma":1e30}],"level":6}"#, #"{"operations":[],"level":12}"#] {
            #expect(throws: DecodingError.self, "\(json)") { try JSONDecoder().decode(ExportPlan.self, from: Data(json.utf8)) }
        }
        let plan = ExportPlan(operations: [.blur(Blur(sigma: 2))], level: 9)
        #expect(try JSONDecoder().decode(ExportPlan.self, from: JSONEncoder().encode(plan)) == plan)
    }
}
