/// How a report names an error that a test body threw: its type and its description, in a
/// sentence (`The body threw an error of type LoadError: the file is missing`).
func bodyThrewText(_ error: any Error) -> String {
  "The body threw an error of type \(type(of: error)): \(error)"
}
