import Foundation
import Testing

/// The checkout's root, from this file's path.
private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

/// The layout docs/architecture.md promises, checked against the tree: the docs cannot drift from
/// Package.swift, and the design rules hold for every file.
@Suite("Layout: Package.swift, docs/architecture.md and the design rules")
struct LayoutTests {
    /// Every `name: "…"` of a target in Package.swift (products and dependencies excluded).
    private func targets() throws -> [String] {
        let manifest = try String(contentsOfFile: "\(root)/Package.swift", encoding: .utf8)
        let body = String(manifest[try #require(manifest.range(of: "targets: [")).upperBound...])
        let pattern = /\.(?:target|systemLibrary|executableTarget|testTarget|plugin)\(\s*name:\s*"([^"]+)"/
        return body.matches(of: pattern).map { String($0.1) }
    }

    private func swiftFiles(under folder: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: "\(root)/\(folder)")
        return (enumerator?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".swift") }.map { "\(folder)/\($0)" }
    }

    @Test("docs/architecture.md's targets table names exactly the targets of Package.swift")
    func targetsTable() throws {
        let names = try targets()
        #expect(names.count > 10, "\(names)")
        let doc = try String(contentsOfFile: "\(root)/docs/architecture.md", encoding: .utf8)
        let section = doc.components(separatedBy: "## Targets").dropFirst().first?.components(separatedBy: "\n## ").first ?? ""
        let documented = Set(section.split(separator: "\n").filter { $0.hasPrefix("| `") }.flatMap { line in
            line.split(separator: "|").first.map { cell in cell.matches(of: /`([A-Za-z0-9-]+)`/).map { String($0.1) } } ?? []
        })
        #expect(Set(names).subtracting(documented).isEmpty, "targets missing from the table: \(Set(names).subtracting(documented).sorted())")
        #expect(documented.subtracting(names).isEmpty, "the table names targets Package.swift lacks: \(documented.subtracting(names).sorted())")
    }

    @Test("only the adapter targets import a C module of the project")
    func cModules() throws {
        let names = try targets()
        let cModules = names.filter { $0.hasPrefix("C") && FileManager.default.fileExists(atPath: "\(root)/Sources/\($0)/module.modulemap") }
        #expect(cModules.count >= 5, "\(cModules)")
        let adapters: [String: Set<String>] = [
            "NoiseClockMQTT": ["CMosquitto"], "NoiseClockAudio": ["CMpg123", "CALSA"], "NoiseClockPower": ["CUPower"],
            "NoiseClockYAML": ["CYAML"], "NoiseClockSystem": ["CTimerFD"],
        ]
        for file in swiftFiles(under: "Sources") + swiftFiles(under: "Tests") + swiftFiles(under: "bench") {
            let text = try String(contentsOfFile: "\(root)/\(file)", encoding: .utf8)
            let target = file.split(separator: "/").dropFirst().first.map(String.init) ?? ""
            for module in cModules where text.contains("import \(module)\n") {
                #expect(adapters[target]?.contains(module) == true, "\(file) imports \(module)")
            }
        }
    }

    @Test("docs/architecture.md names every command group and every document the node stores")
    func groupsAndDocuments() throws {
        let doc = try String(contentsOfFile: "\(root)/docs/architecture.md", encoding: .utf8)
        var groups: [String] = [], documents: [String] = []
        for file in swiftFiles(under: "Sources/NoiseClockNode") + swiftFiles(under: "Sources/NoiseClockCore") {
            let text = try String(contentsOfFile: "\(root)/\(file)", encoding: .utf8)
            groups += text.matches(of: /struct ([A-Za-z]+): CommandGroup/).map { String($0.1) }
            documents += text.matches(of: /static let documentName = "([^"]+)"/).map { String($0.1) }
        }
        #expect(groups.count >= 9, "\(groups)")
        #expect(documents.count >= 6, "\(documents)")
        for name in groups + documents {
            #expect(doc.contains("`\(name)`"), "docs/architecture.md does not name \(name)")
        }
    }

    @Test("every task the node makes runs on its loop: no Task {} or Task.detached without an executor preference in Sources")
    func tasksOnTheLoop() throws {
        // Without `executorPreference:` a task's nonisolated code runs on libdispatch's pool, whose
        // threads then wake once a second for the life of the process (docs/architecture.md, Threads).
        var bare: [String] = []
        var made = 0
        for file in swiftFiles(under: "Sources") {
            let text = try String(contentsOfFile: "\(root)/\(file)", encoding: .utf8)
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.components(separatedBy: "//").first ?? ""
                for match in code.matches(of: /\bTask(\.detached)?\s*[({]/) {
                    made += 1
                    if match.output.1 != nil || !code[match.range.lowerBound...].contains("executorPreference:") {
                        bare.append("\(file):\(index + 1): \(line.trimmingCharacters(in: .whitespaces))")
                    }
                }
            }
        }
        #expect(made >= 5, "the check found only \(made) tasks made in Sources")
        #expect(bare.isEmpty, "tasks without the loop as their executor:\n\(bare.joined(separator: "\n"))")
    }

    @Test("no source file is over 400 lines")
    func fileLength() throws {
        for file in swiftFiles(under: "Sources") {
            let lines = try String(contentsOfFile: "\(root)/\(file)", encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).count
            #expect(lines <= 401, "\(file) has \(lines) lines")
        }
    }
}
