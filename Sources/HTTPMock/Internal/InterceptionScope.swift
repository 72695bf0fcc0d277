import AirlockBase

/// One `intercepting` scope: the mock that answers `URLSession.shared` for the task tree that
/// entered it, the scope it is nested in, and whether it is still open.
///
/// The innermost scope travels as a task-local value, so each test (each task tree) sees its own
/// and nothing is process-wide: two tests running in parallel never see each other's scope. A
/// task that outlives the scope (an unstructured `Task` started inside it) still carries the
/// value, so the scope is closed when its body returns and a closed scope answers nothing: the
/// request goes to the next open scope out, or — outside every open scope — where it would have
/// gone without Airlock.
final class InterceptionScope: Sendable {
    let mock: HTTPMock
    let enclosing: InterceptionScope?
    private let isOpen = Locked(true)

    init(mock: HTTPMock, enclosing: InterceptionScope?) {
        self.mock = mock
        self.enclosing = enclosing
    }

    /// Ends the scope's reach; requests that started while it was open finish as they began.
    func close() {
        isOpen.withLock { $0 = false }
    }

    /// The innermost scope of the current task (or thread) that is still open.
    static var innermostOpen: InterceptionScope? {
        current?.firstOpen
    }

    /// This scope if it is open, else the nearest open one it is nested in.
    var firstOpen: InterceptionScope? {
        var scope: InterceptionScope? = self
        while let candidate = scope {
            if candidate.isOpen.withLock({ $0 }) { return candidate }
            scope = candidate.enclosing
        }
        return nil
    }

    /// The innermost scope the current task entered, open or not.
    @TaskLocal static var current: InterceptionScope?
}
