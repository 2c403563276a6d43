import Dispatch
import Foundation

/// A small callback promise, written the way legacy libraries are: its state guarded by a
/// concurrent queue with barrier writes, its callbacks delivered on a queue (the main queue by
/// default). The suite beside it tests it as such a library's own suite does.
final class MiniPromise<Value> {
  private let state = DispatchQueue(label: "com.example.minipromise.state", attributes: .concurrent)
  private var value: Value?
  private var callbacks: [(DispatchQueue, (Value) -> Void)] = []

  init() {}

  init(value: Value) { self.value = value }

  /// A promise resolved with `value` after `seconds`, on a global queue.
  static func after(_ seconds: Double, _ value: Value) -> MiniPromise<Value> {
    let promise = MiniPromise<Value>()
    DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { promise.fulfill(value) }  // subject
    return promise
  }

  var isResolved: Bool { state.sync { value != nil } }

  func fulfill(_ newValue: Value) {
    state.async(flags: .barrier) {
      guard self.value == nil else { return }
      self.value = newValue
      let callbacks = self.callbacks
      self.callbacks = []
      for (queue, callback) in callbacks { queue.async { callback(newValue) } }
    }
  }

  @discardableResult
  func then(on queue: DispatchQueue = .main, _ callback: @escaping (Value) -> Void) -> MiniPromise<Value> {
    state.async(flags: .barrier) {
      if let value = self.value {
        queue.async { callback(value) }
      } else {
        self.callbacks.append((queue, callback))
      }
    }
    return self
  }

  func map<T>(on queue: DispatchQueue = .main, _ transform: @escaping (Value) -> T) -> MiniPromise<T> {
    let next = MiniPromise<T>()
    then(on: queue) { next.fulfill(transform($0)) }
    return next
  }

  /// A promise of the transformed value, never resolved where `transform` returns `nil`.
  func compactMap<T>(on queue: DispatchQueue = .main, _ transform: @escaping (Value) -> T?) -> MiniPromise<T>
  {
    let next = MiniPromise<T>()
    then(on: queue) { value in
      if let mapped = transform(value) { next.fulfill(mapped) }
    }
    return next
  }
}
