import Lockstep

/// A service the model calls.
public protocol NameService: Sendable {
  func fetchName() async throws -> String
}

/// A main-actor screen model that starts its own task and sleeps on an injected clock, as app
/// code written against Lockstep's seams does.
@MainActor public final class GreetingModel {
  /// What the screen shows.
  public private(set) var greeting = ""
  private let service: any NameService
  private let clock: any Clock<Duration>
  private let tasks: any TaskFactory
  private var generation = 0

  /// A model that fetches names from `service` and sleeps on `clock`.
  public init(service: any NameService, clock: any Clock<Duration>, tasks: any TaskFactory = .live) {
    self.service = service
    self.clock = clock
    self.tasks = tasks
  }

  /// Shows a greeting after a quiet period of 100 ms; a newer call wins.
  public func load() {
    generation += 1
    let mine = generation
    tasks.task(name: "greeting") {
      try? await self.clock.sleep(for: .milliseconds(100))
      guard mine == self.generation, let name = try? await self.service.fetchName() else { return }
      guard mine == self.generation else { return }
      self.greeting = "Hello, \(name)!"
    }
  }
}
