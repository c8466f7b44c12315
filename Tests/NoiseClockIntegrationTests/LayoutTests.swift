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
            "NoiseClockYAML": ["CYAML"], "NoiseClockSystem": ["CTimerFD"], "NoiseClockFFmpeg": ["CFFmpeg"],
            "NoiseClockHTTP": ["CCurl"], "NoiseClockEspeak": ["CEspeak"], "NoiseClockICal": ["CICal"],
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

    @Test("every task the node makes runs on its loop, made the one way: NodeActor.task (or NodeActor.onLoop, with no task)")
    func tasksOnTheLoop() throws {
        // Without `executorPreference:` a task's nonisolated code runs on libdispatch's pool, whose
        // threads then wake once a second for the life of the process (docs/architecture.md, Threads).
        // `NodeActor.task` is the one place that names it; everything else goes through it.
        var made: [String] = [], executor: [String] = []
        var tasks = 0
        for file in swiftFiles(under: "Sources") {
            let text = try String(contentsOfFile: "\(root)/\(file)", encoding: .utf8)
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.components(separatedBy: "//").first ?? ""
                let place = "\(file):\(index + 1): \(line.trimmingCharacters(in: .whitespaces))"
                tasks += code.matches(of: /\bNodeActor\.task\b/).count
                if !file.hasPrefix("Sources/NoiseClockSystem/"), code.contains(/\bTask(\.detached)?\s*[({]/) { made.append(place) }
                if file.hasPrefix("Sources/NoiseClockNode/") || file.hasPrefix("Sources/NoiseClockFace/"),
                   code.contains(/NodeExecutor\.shared\.(execute|onLoop)\b/) {
                    executor.append(place)
                }
            }
        }
        #expect(tasks >= 5, "the check found only \(tasks) uses of NodeActor.task in Sources")
        #expect(made.isEmpty, "tasks made outside NodeActor.task:\n\(made.joined(separator: "\n"))")
        #expect(executor.isEmpty, "features on the loop other than through NodeActor.onLoop:\n\(executor.joined(separator: "\n"))")
    }

    @Test("Core and Node are grouped by feature: every folder is a row of docs/architecture.md's Features table, and no file lies outside one")
    func featureFolders() throws {
        let doc = try String(contentsOfFile: "\(root)/docs/architecture.md", encoding: .utf8)
        let section = doc.components(separatedBy: "## Features").dropFirst().first?.components(separatedBy: "\n## ").first ?? ""
        let rows = Set(section.split(separator: "\n").compactMap { line in line.firstMatch(of: /^\| `([A-Za-z]+)\/` \|/).map { String($0.1) } })
        #expect(rows.count >= 10, "\(rows.sorted())")
        var folders: Set<String> = []
        for target in ["NoiseClockCore", "NoiseClockNode"] {
            let files = swiftFiles(under: "Sources/\(target)")
            #expect(files.count > 20, "\(target): \(files.count) files")
            for file in files {
                let parts = file.split(separator: "/").dropFirst(2)
                guard parts.count == 2, let folder = parts.first else {
                    Issue.record("\(file) is not in a feature folder of its own (Sources/\(target)/<Feature>/)")
                    continue
                }
                folders.insert(String(folder))
            }
        }
        #expect(folders.subtracting(rows).isEmpty, "folders without a row in Features: \(folders.subtracting(rows).sorted())")
        #expect(rows.subtracting(folders).isEmpty, "rows of Features without a folder: \(rows.subtracting(folders).sorted())")
    }

    @Test("Core is the pure domain: it imports nothing of the project, and Package.swift gives it no dependency")
    func coreStandsAlone() throws {
        for file in swiftFiles(under: "Sources/NoiseClockCore") {
            let text = try String(contentsOfFile: "\(root)/\(file)", encoding: .utf8)
            #expect(!text.contains(/\nimport (NoiseClock|C[A-Z])/) && !text.hasPrefix("import NoiseClock"), "\(file) imports a target of the project")
        }
        let manifest = try String(contentsOfFile: "\(root)/Package.swift", encoding: .utf8)
        #expect(manifest.contains(".target(name: \"NoiseClockCore\"),"), "NoiseClockCore has dependencies in Package.swift")
    }

    @Test("time comes from the injected clock: TimeSource.shared is read only by NoiseClockSystem, NodeClock.live and the MQTT client's default")
    func injectedTime() throws {
        var reads: [String] = []
        for file in swiftFiles(under: "Sources") where !file.hasPrefix("Sources/NoiseClockSystem/") {
            let text = try String(contentsOfFile: "\(root)/\(file)", encoding: .utf8)
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where (line.components(separatedBy: "//").first ?? "").contains("TimeSource.shared") {
                reads.append("\(file):\(index + 1)")
            }
        }
        let allowed = ["Sources/NoiseClockNode/Time/NodeClock.swift", "Sources/NoiseClockMQTT/MQTTClient.swift"]
        let others = reads.filter { read in !allowed.contains { read.hasPrefix($0 + ":") } }
        #expect(!reads.isEmpty, "the check found no read at all (NodeClock.live reads it)")
        #expect(others.isEmpty, "TimeSource.shared read outside the injected clock: \(others)")
    }

    @Test("no source file is over 400 lines")
    func fileLength() throws {
        for file in swiftFiles(under: "Sources") {
            let lines = try String(contentsOfFile: "\(root)/\(file)", encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).count
            #expect(lines <= 401, "\(file) has \(lines) lines")
        }
    }
}
