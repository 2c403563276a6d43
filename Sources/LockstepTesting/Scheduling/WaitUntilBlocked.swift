/// Inside a deterministic run, waits until every other task of the run is blocked: no other job
/// is ready and no sleeper is due at the current instant. Virtual time does not move.
///
/// This is Go's `synctest.Wait` for code that starts tasks Lockstep does not track — plain
/// `Task {}`, a library's own tasks: after it returns, everything that could happen at this
/// instant has happened, so a check sees the settled state. Outside a run it throws
/// ``NotInDeterministicRun``. See <doc:WhichWorkRunsNext#Wait-until-the-others-are-blocked>.
///
/// ```swift
/// @Test(.deterministic(), .timeLimit(.minutes(1)))
/// func aSearchStartsOneRequestPerQuery() async throws {
///   let model = SearchModel(api: api)
///   model.queryChanged("swift")            // starts a Task {} of its own
///   try await waitUntilBlocked()            // it ran until it waits for the API
///   #expect(api.requests == ["swift"])
/// }
/// ```
public nonisolated(nonsending) func waitUntilBlocked(
  fileID: StaticString = #fileID, filePath: StaticString = #filePath,
  line: UInt = #line, column: UInt = #column
) async throws(NotInDeterministicRun) {
  guard await CurrentRun.awaitQuiescence() else {
    throw NotInDeterministicRun(
      call: "waitUntilBlocked()",
      site: CallSite(fileID: fileID, filePath: filePath, line: line, column: column))
  }
}
