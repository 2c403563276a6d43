public import Lockstep

/// A decoded image, as far as the examples care: where it came from and how big it is.
public struct LoadedImage: Sendable, Equatable {
  /// The address it was downloaded from.
  public let url: String
  /// How many bytes were downloaded.
  public let byteCount: Int

  /// Creates the image.
  public init(url: String, byteCount: Int) {
    self.url = url
    self.byteCount = byteCount
  }
}

/// A legacy, completion-handler image loader: it downloads and decodes on a background queue and
/// hops to the main queue with the result, so that the caller can update its views.
///
/// ```swift
/// let loader = LegacyImageLoader(
///   background: DispatchQueue.global(), main: DispatchQueue.main, download: download)
/// loader.load(url) { image in
///   MainActor.assumeIsolated { imageView.image = image }
/// }
/// ```
///
/// The contract: `completion` is called exactly once, always on the main queue — also for a
/// failed download. The `.broken` variant forgets the hop and calls `completion` on the background
/// queue; a test with two `TestQueue`s catches it every time: the image is already delivered when
/// only the background queue has run.
public final class LegacyImageLoader: Sendable {
  private let background: any WorkScheduler
  private let main: any WorkScheduler
  private let variant: Variant
  private let download: @Sendable (String) -> [UInt8]?

  /// Creates the loader.
  ///
  /// - Parameter download: Fetches the bytes at an address, blocking; nil when that fails. Called
  ///   on the background queue.
  public init(
    background: any WorkScheduler, main: any WorkScheduler, variant: Variant = .correct,
    download: @escaping @Sendable (String) -> [UInt8]?
  ) {
    self.background = background
    self.main = main
    self.variant = variant
    self.download = download
  }

  /// Loads the image at `url` and calls `completion` on the main queue with it (nil when the
  /// download failed).
  public func load(_ url: String, completion: @escaping @Sendable (LoadedImage?) -> Void) {
    let (main, variant, download) = (self.main, self.variant, self.download)
    background.schedule {
      let image = download(url).map { LoadedImage(url: url, byteCount: $0.count) }
      switch variant {
      case .correct:
        main.schedule { completion(image) }
      case .broken:
        completion(image)  // BUG: still on the background queue
      }
    }
  }
}
