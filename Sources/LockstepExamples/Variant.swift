/// Which version of an example model to build: the correct one, or one with a deliberate,
/// realistic concurrency bug that Lockstep's tests catch every time.
public enum Variant: String, Sendable, CaseIterable {
  /// The model as it should be written.
  case correct
  /// The model with the bug its documentation describes.
  case broken
}
