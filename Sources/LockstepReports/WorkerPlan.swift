/// What `lockstep-explore` is asked to do, read from its command line: how many workers, the test
/// executable and the reports folder if given, and the arguments for the test executable (those
/// after `--`); and what each worker's environment is. Pure: it launches nothing.
///
/// ```swift
/// let plan = try WorkerPlan(arguments: ["--workers", "2", "--", "--filter", "Race"], processors: 8)
/// print(plan.workers, plan.testArguments)   // 2 ["--filter", "Race"]
/// let environment = plan.environment(worker: 2, reports: "/tmp/r", inheriting: ["A": "1"])
/// print(environment["LOCKSTEP_SHARD"]!)       // 2/2
/// ```
public struct WorkerPlan: Sendable, Equatable {
  /// The variable that gives a process its shard.
  public static let shardVariable = "LOCKSTEP_SHARD"
  /// The variable that names the folder explorations write their summaries to.
  public static let reportsVariable = "LOCKSTEP_REPORTS"

  /// How many test processes run at once, each one shard: `--workers`, by default the number of
  /// active processors.
  public var workers: Int
  /// The test executable given with `--test-binary`, if any.
  public var testBinary: String?
  /// The folder given with `--reports`, if any.
  public var reports: String?
  /// The arguments after `--`, for the test executable.
  public var testArguments: [String]
  /// Whether `--help` was asked for.
  public var showsHelp = false

  /// A command line that cannot be followed, and why.
  public struct ArgumentError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, for a person to act on.
    public let description: String

    /// An error that says `description`.
    public init(description: String) {
      self.description = description
    }
  }

  /// Reads `arguments` (without the executable's name); `processors` is the default number of
  /// workers.
  public init(arguments: [String], processors: Int) throws(ArgumentError) {
    workers = max(processors, 1)
    testArguments = []
    var rest = arguments[...]
    while let argument = rest.popFirst() {
      if argument == "--" {
        testArguments = Array(rest)
        break
      }
      let (name, attached) = Self.split(argument)
      func value() throws(ArgumentError) -> String {
        if let attached { return attached }
        guard let next = rest.popFirst() else {
          throw ArgumentError(description: "\(name) needs a value")
        }
        return next
      }
      switch name {
      case "--help", "-h": showsHelp = true
      case "--workers":
        let text = try value()
        guard let count = Int(text), count >= 1 else {
          throw ArgumentError(description: "--workers must be a whole number of at least 1, not \"\(text)\"")
        }
        workers = count
      case "--test-binary": testBinary = try value()
      case "--reports": reports = try value()
      default:
        throw ArgumentError(
          description: name.hasPrefix("-")
            ? "unknown option \(name); the test executable's arguments go after --"
            : "unexpected argument \"\(argument)\"; the test executable's arguments go after --")
      }
    }
  }

  /// `--name=value` as `("--name", "value")`; any other argument as itself and `nil`.
  private static func split(_ argument: String) -> (String, String?) {
    guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else {
      return (argument, nil)
    }
    return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
  }

  /// The shard worker `worker` (from 1) explores.
  public func shard(_ worker: Int) -> ExplorationSummary.Shard {
    ExplorationSummary.Shard(index: worker, count: workers)
  }

  /// Worker `worker`'s environment: `inheriting` (the user's, with their `LOCKSTEP_EXPLORE_SCALE`
  /// and the rest), with `LOCKSTEP_SHARD` set to its shard and `LOCKSTEP_REPORTS` to `reports`.
  public func environment(worker: Int, reports: String, inheriting: [String: String]) -> [String: String] {
    var environment = inheriting
    environment[Self.shardVariable] = shard(worker).description
    environment[Self.reportsVariable] = reports
    return environment
  }

  /// Where the summaries go: `--reports`, else the user's `LOCKSTEP_REPORTS`; `nil` when neither
  /// is set (a new temporary folder, then).
  public func reportsFolder(inheriting environment: [String: String]) -> String? {
    if let reports, !reports.isEmpty { return reports }
    if let folder = environment[Self.reportsVariable], !folder.isEmpty { return folder }
    return nil
  }

  /// The test bundle among the names in a build's bin folder: the one `<Name>PackageTests.xctest`;
  /// `nil` when there is none or more than one.
  public static func testBundle(among names: [String]) -> String? {
    let bundles = names.filter { $0.hasSuffix("PackageTests.xctest") }
    return bundles.count == 1 ? bundles[0] : nil
  }
}
