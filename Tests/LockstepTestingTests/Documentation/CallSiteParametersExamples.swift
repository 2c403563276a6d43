import LockstepTestSupport
import LockstepTesting
import Testing

// MARK: - Call-site parameters (CallSiteParameters.md)

private struct Book: Equatable, Sendable {
  let id: Int
  let title: String
}

private protocol BookLoader: Sendable {
  func load(id: Int) async throws -> Book
}

private struct FakeLoader: BookLoader {
  let calls = ControlledCalls<Int, Book>("loader")
  let createdAt: CallSite

  init(
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) {
    createdAt = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
  }

  func load(id: Int) async throws -> Book { try await calls.call(id) }

  /// Waits for request `id` and answers it; a timeout is reported at the caller's line.
  nonisolated(nonsending) func answer(
    _ id: Int, with book: Book, timeout: Duration = .seconds(10),
    fileID: StaticString = #fileID, filePath: StaticString = #filePath,
    line: UInt = #line, column: UInt = #column
  ) async throws {
    _ = try await calls.waitUntilPending(
      id, timeout: timeout, fileID: fileID, filePath: filePath, line: line, column: column)
    calls.succeed(id, with: book, fileID: fileID, filePath: filePath, line: line, column: column)
  }

  /// Reports every call left pending at the line that created this fake.
  func verify() {
    calls.verifyAllCompleted(
      fileID: createdAt.fileID, filePath: createdAt.filePath,
      line: createdAt.line, column: createdAt.column)
  }
}

@MainActor @Suite(.timeLimit(.minutes(SuiteTimeLimit.minutes)))
struct CallSiteParametersExamples {
  @Test func theHelperAnswersTheRequest() async throws {
    let loader = FakeLoader()
    let load = Task { try await loader.load(id: 1) }
    try await loader.answer(1, with: Book(id: 1, title: "Dune"))
    #expect(try await load.value == Book(id: 1, title: "Dune"))
    loader.verify()
  }

  @Test func aTimeoutInTheHelperIsReportedAtTheTestsLine() async throws {
    let loader = FakeLoader()
    // Outside `#expect`: a macro's expansion gives the default `#line` of calls inside it its own.
    var error: WaitTimeoutError?
    let expectedLine: UInt = #line + 2
    do {
      try await loader.answer(1, with: Book(id: 1, title: "Dune"), timeout: .milliseconds(20))
    } catch let timeout as WaitTimeoutError {
      error = timeout
    }
    let site = try #require(error?.site)
    #expect(site.line == expectedLine)
    #expect("\(site.fileID)".hasSuffix("CallSiteParametersExamples.swift"))
  }

  @Test func aCallLeftPendingIsReportedWhereTheFakeWasCreated() async throws {
    let (createdAt, issues) = try await collectingIssues {
      let loader = FakeLoader()
      let load = Task { try? await loader.load(id: 7) }
      _ = try await loader.calls.waitUntilPending(1)
      loader.verify()  // the test "forgets" to answer call 1
      _ = await load.value  // the check ended the call
      return loader.createdAt
    }
    let issue = try #require(issues.first)
    #expect(issues.count == 1)
    #expect(issue.message.hasPrefix("loader call #1 (argument: 7) was never completed"))
    #expect(issue.site.line == createdAt.line)
    #expect("\(issue.site.fileID)".hasSuffix("CallSiteParametersExamples.swift"))
  }
}
