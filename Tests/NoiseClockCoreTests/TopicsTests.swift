import NoiseClockCore
import Testing

@Suite("Topics (SPEC §2)")
struct TopicsTests {
    let topics = Topics(base: "noiseclock", nodeID: "kitchen")

    @Test("B is base_topic/node_id and the state topics hang off it")
    func stateTopics() {
        #expect(topics.node == "noiseclock/kitchen")
        #expect(topics.availability == "noiseclock/kitchen/availability")
        #expect(topics.status == "noiseclock/kitchen/status")
        #expect(topics.clock == "noiseclock/kitchen/clock")
        #expect(topics.settings == "noiseclock/kitchen/settings")
        #expect(topics.event == "noiseclock/kitchen/event")
    }

    @Test("a verb is answered on B/response/VERB")
    func responseTopic() {
        #expect(topics.response("ping") == "noiseclock/kitchen/response/ping")
        #expect(topics.response("alarm/a1/enabled") == "noiseclock/kitchen/response/alarm/a1/enabled")
    }

    @Test("commands arrive on B/cmd/VERB or base/all/cmd/VERB")
    func commandTopics() {
        #expect(topics.command("alarm/add") == "noiseclock/kitchen/cmd/alarm/add")
        #expect(topics.allCommand("noise/stop") == "noiseclock/all/cmd/noise/stop")
    }

    @Test("the node subscribes to its own and the all-nodes command trees")
    func commandFilters() {
        #expect(Set(topics.commandFilters) == ["noiseclock/kitchen/cmd/#", "noiseclock/all/cmd/#"])
        #expect(topics.commandFilters.count == 2)
    }

    @Test("the verb is read from a node command topic", arguments: [
        ("noiseclock/kitchen/cmd/ping", "ping"),
        ("noiseclock/kitchen/cmd/alarm/add", "alarm/add"),
        ("noiseclock/kitchen/cmd/alarm/a1/enabled", "alarm/a1/enabled"),
    ])
    func verbFromNodeTopic(topic: String, verb: String) {
        #expect(topics.verb(inCommandTopic: topic) == verb)
    }

    @Test("the verb is read from an all-nodes command topic", arguments: [
        ("noiseclock/all/cmd/ping", "ping"),
        ("noiseclock/all/cmd/noise/stop", "noise/stop"),
    ])
    func verbFromAllTopic(topic: String, verb: String) {
        #expect(topics.verb(inCommandTopic: topic) == verb)
    }

    @Test("topics that are not this node's commands carry no verb", arguments: [
        "noiseclock/bedroom/cmd/ping",
        "noiseclock/kitchen2/cmd/ping",
        "noiseclock/kitchen/response/ping",
        "noiseclock/kitchen/cmdx/ping",
        "noiseclock/kitchen/cmd",
        "noiseclock/kitchen/clock",
        "other/kitchen/cmd/ping",
        "other/all/cmd/ping",
        "xnoiseclock/kitchen/cmd/ping",
        "",
    ])
    func foreignTopics(topic: String) {
        #expect(topics.verb(inCommandTopic: topic) == nil)
    }

    @Test("a command topic with an empty verb carries no verb", arguments: ["noiseclock/kitchen/cmd/", "noiseclock/all/cmd/"])
    func emptyVerb(topic: String) {
        #expect(topics.verb(inCommandTopic: topic) == nil)
    }

    @Test("every verb survives the trip through its command topics", arguments: [
        "ping", "settings", "alarm/add", "alarm/x9/enabled", "noise/play",
    ])
    func roundTrip(verb: String) {
        #expect(topics.verb(inCommandTopic: topics.command(verb)) == verb)
        #expect(topics.verb(inCommandTopic: topics.allCommand(verb)) == verb)
    }

    @Test("a multi-level base topic works the same")
    func multiLevelBase() {
        let topics = Topics(base: "home/clocks", nodeID: "n1")
        #expect(topics.node == "home/clocks/n1")
        #expect(topics.command("ping") == "home/clocks/n1/cmd/ping")
        #expect(topics.verb(inCommandTopic: "home/clocks/n1/cmd/ping") == "ping")
        #expect(topics.verb(inCommandTopic: "home/clocks/all/cmd/ping") == "ping")
        #expect(topics.verb(inCommandTopic: "noiseclock/n1/cmd/ping") == nil)
    }
}
