import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLProtocol {
    /// Whether the task this protocol loads for gets each piece of the body that the protocol
    /// hands its client, as it is handed (a data delegate's `didReceive`).
    ///
    /// Apple's Foundation always passes pieces on. swift-corelibs-foundation passes them to a
    /// task that calls its session's delegate, but keeps only the *last* piece for a task with a
    /// completion handler (`dataTask(with:completionHandler:)`, `data(for:)`): for that task the
    /// whole body has to go in one piece. Which kind a task is lives in its session's task
    /// registry, read here through `Mirror` where the session reads and writes it: on its work
    /// queue, which `startLoading()` runs on. Whatever cannot be read counts as a completion
    /// handler, which receives the whole body either way.
    ///
    /// - Parameter onWorkQueue: Whether the caller runs inside `startLoading()` (on the session's
    ///   work queue); otherwise the registry is read on that queue, waiting for it.
    package func clientTakesBodyInPieces(onWorkQueue: Bool) -> Bool {
        #if canImport(FoundationNetworking)
        guard let task else { return false }
        return Self.callsDelegate(task, onWorkQueue: onWorkQueue)
        #else
        return true
        #endif
    }

    #if canImport(FoundationNetworking)
    private static func callsDelegate(_ task: URLSessionTask, onWorkQueue: Bool) -> Bool {
        guard let session = storedValue("session", of: task).flatMap(unwrapped) as? URLSession,
              let workQueue = storedValue("workQueue", of: session) as? DispatchQueue
        else { return false }
        let identifier = task.taskIdentifier
        let read = {
            guard let registry = storedValue("taskRegistry", of: session),
                  let behaviours = storedValue("behaviours", of: registry)
            else { return false }
            for child in Mirror(reflecting: behaviours).children {
                let pair = Mirror(reflecting: child.value).children.map(\.value)
                guard pair.count == 2, pair[0] as? Int == identifier else { continue }
                return String(describing: pair[1]).hasSuffix("callDelegate")
            }
            return false
        }
        return onWorkQueue ? read() : workQueue.sync(execute: read)
    }

    /// The stored property `label` of `value` or of one of its superclasses.
    private static func storedValue(_ label: String, of value: Any) -> Any? {
        var mirror: Mirror? = Mirror(reflecting: value)
        while let current = mirror {
            if let child = current.children.first(where: { $0.label == label }) { return child.value }
            mirror = current.superclassMirror
        }
        return nil
    }

    /// What an optional holds, or the value itself.
    private static func unwrapped(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first?.value
    }
    #endif
}
