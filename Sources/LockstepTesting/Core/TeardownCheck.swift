/// The teardown shell of ``ControlledCalls``, ``SequenceRecorder`` and ``PropertyRecorder``: an
/// object that registers with the active verification scope when it is created, and whose check
/// reports at the line that created it when the scope (or the object) ends.
protocol TeardownChecked: TeardownVerifiable {
  /// Where the object was created: where the teardown check reports.
  var creationSite: CallSite { get }

  /// Reports at `site` what the test left unfinished and ends it so that nothing leaks; whether
  /// everything was finished.
  func verify(at site: CallSite) -> Bool
}

extension TeardownChecked {
  func verifyAtTeardown() -> Bool { verify(at: creationSite) }

  /// Registers the new object with the active verification scope, if there is one.
  func registerForTeardown() { TeardownRegistry.registerWithCurrentScope(self) }
}
