//! Every event id laige-sim raises or reports, in one place.
//!
//! The ids are part of the public contract (tests, dashboards and the docs
//! match on them): renaming one is a breaking change. Each id's page in
//! its doc comment says when it fires, its severity and its fields.

use laige_core::EventId;

/// `loop/tick_rate_invalid`: `GameLoopOptions::tick_rate_hz` outside
/// 20..=120 Hz (field `tick_rate_hz`). InvalidArgument + one rate-limited warn.
pub const TICK_RATE_INVALID: EventId = EventId::new("loop", "tick_rate_invalid");
/// `loop/catchup_invalid`: `GameLoopOptions::max_catch_up_ticks` outside
/// `1..=MAX_CATCH_UP_TICKS` (field `max_catch_up`). InvalidArgument + one rate-limited warn.
pub const CATCHUP_INVALID: EventId = EventId::new("loop", "catchup_invalid");
/// `loop/tick_dropped` (Warn): a frame's due-tick demand exceeded the
/// catch-up bound; fields `dropped`, `total_dropped`, `max_catch_up`,
/// `tick_rate_hz`.
pub const TICK_DROPPED: EventId = EventId::new("loop", "tick_dropped");
/// `loop/invalid_transition`: a lifecycle call not allowed in the current
/// state (InvalidState; returned, not logged).
pub const INVALID_TRANSITION: EventId = EventId::new("loop", "invalid_transition");
/// `loop/shut_down`: `frame()`/`step()` on a loop in `Shutdown`
/// (InvalidState; returned, not logged — a pure failure).
pub const SHUT_DOWN: EventId = EventId::new("loop", "shut_down");
/// `loop/clock_backward` (Warn): the clock returned a reading below the
/// previous one; the frame contributes no time. Fields `reading_ns`,
/// `last_ns`.
pub const CLOCK_BACKWARD: EventId = EventId::new("loop", "clock_backward");
/// `loop/hook_panicked`: a [`LoopHooks`](crate::LoopHooks) callback panicked
/// (Failed; the panic is caught).
pub const HOOK_PANICKED: EventId = EventId::new("loop", "hook_panicked");

/// `system/schedule_stale`: a schedule computed before the last system
/// registration was run (InvalidArgument + rate-limited warn).
pub const SCHEDULE_STALE: EventId = EventId::new("system", "schedule_stale");
/// `system/schedule_invalid`: a schedule from another world, or a
/// default-constructed / malformed one, was run (InvalidArgument +
/// rate-limited warn).
pub const SCHEDULE_INVALID: EventId = EventId::new("system", "schedule_invalid");
/// `system/name_invalid`: an empty system name, or one that is already
/// registered in this world (InvalidArgument + rate-limited warn).
pub const SYSTEM_NAME_INVALID: EventId = EventId::new("system", "name_invalid");
/// `system/system_panicked`: a system panicked; the panic is caught and
/// becomes an [`ErrorCode::Failed`](laige_core::ErrorCode::Failed) error
/// naming the system — never an unwinding loop. Returned, not logged: the
/// caller that ends the run logs it.
pub const SYSTEM_PANICKED: EventId = EventId::new("system", "system_panicked");

/// `world/no_such_entity`: despawn/insert/remove on an entity that is not
/// alive (InvalidArgument; returned, not logged — a query of state).
pub const NO_SUCH_ENTITY: EventId = EventId::new("world", "no_such_entity");
/// `world/missing_component`: `remove` of a component the entity does not
/// have (InvalidArgument; returned, not logged).
pub const MISSING_COMPONENT: EventId = EventId::new("world", "missing_component");
/// `world/hashed_name_invalid`: a hashed-component name that is empty,
/// taken by another type, or differs from the type's earlier registration
/// (InvalidArgument + rate-limited warn).
pub const HASHED_NAME_INVALID: EventId = EventId::new("world", "hashed_name_invalid");
/// `world/no_such_resource`: a resource read or written that the world
/// does not hold; the value names the type (InvalidArgument; returned, not
/// logged).
pub const NO_SUCH_RESOURCE: EventId = EventId::new("world", "no_such_resource");
/// `world/resource_name_invalid`: a hashed-resource name that is empty,
/// taken by another type, or differs from the type's earlier insertion
/// (InvalidArgument + rate-limited warn).
pub const RESOURCE_NAME_INVALID: EventId = EventId::new("world", "resource_name_invalid");
/// `world/churn_budget_invalid`: a per-frame churn budget of 0
/// (InvalidArgument + rate-limited warn).
pub const CHURN_BUDGET_INVALID: EventId = EventId::new("world", "churn_budget_invalid");
/// `world/spawn_budget_exceeded` (Warn): a frame spawned more entities than
/// the per-frame budget; fields `frame`, `spawns`, `budget`.
pub const SPAWN_BUDGET_EXCEEDED: EventId = EventId::new("world", "spawn_budget_exceeded");
/// `world/despawn_budget_exceeded` (Warn): a frame despawned more entities
/// than the per-frame budget; fields `frame`, `despawns`, `budget`.
pub const DESPAWN_BUDGET_EXCEEDED: EventId = EventId::new("world", "despawn_budget_exceeded");

/// `input/queue_overflow` (Warn): a push found the queue full; the event
/// was rejected. Fields `capacity`, `overflowed` (total), `tick`.
pub const QUEUE_OVERFLOW: EventId = EventId::new("input", "queue_overflow");
/// `input/capacity_invalid`: a queue capacity outside
/// `1..=MAX_INPUT_CAPACITY`, or below the events already pending
/// (InvalidArgument + one rate-limited warn).
pub const CAPACITY_INVALID: EventId = EventId::new("input", "capacity_invalid");
/// `input/script_invalid`: a scripted input entry with a negative time
/// (InvalidArgument + one rate-limited warn).
pub const SCRIPT_INVALID: EventId = EventId::new("input", "script_invalid");

/// `replay/corrupt` (Corrupt): a damaged header or record, a torn tail, a
/// missing end record; field = the failed check (`magic`, `header_crc`,
/// `record`, `record_crc`, `record_kind`, `payload_length`, `tick`,
/// `hash_tick`, `hash_missing`, `end_tick`, `end_record`,
/// `trailing_bytes`, `file_size`, `backend`, `engine_version`, `header`),
/// detail = byte offset and tick.
pub const CORRUPT: EventId = EventId::new("replay", "corrupt");
/// `replay/version_unsupported` (Corrupt): the file's format version is
/// not the one this build reads (field `version`).
pub const VERSION_UNSUPPORTED: EventId = EventId::new("replay", "version_unsupported");
/// `replay/identity_mismatch` (InvalidArgument): the replay was recorded
/// with another backend, config hash or engine version.
pub const IDENTITY_MISMATCH: EventId = EventId::new("replay", "identity_mismatch");
/// `replay/header_invalid` (InvalidArgument): a header with a zero hash
/// interval or an empty / over-long engine version.
pub const HEADER_INVALID: EventId = EventId::new("replay", "header_invalid");
/// `replay/io_failed` (Io): the file could not be created, written or read.
pub const IO_FAILED: EventId = EventId::new("replay", "io_failed");
/// `replay/tick_out_of_order` (InvalidArgument): a record for a tick other
/// than the next one (nothing is written).
pub const TICK_OUT_OF_ORDER: EventId = EventId::new("replay", "tick_out_of_order");
/// `replay/tick_out_of_range` (InvalidArgument): a tick the replay does not
/// hold.
pub const TICK_OUT_OF_RANGE: EventId = EventId::new("replay", "tick_out_of_range");
/// `replay/input_too_large` (InvalidArgument): one tick's input over
/// [`MAX_PAYLOAD_BYTES`](crate::replay::MAX_PAYLOAD_BYTES).
pub const INPUT_TOO_LARGE: EventId = EventId::new("replay", "input_too_large");
/// `replay/input_invalid` (Corrupt): recorded input bytes that do not
/// decode (use it in [`ReplayInput::decode`](crate::replay::ReplayInput::decode)).
pub const INPUT_INVALID: EventId = EventId::new("replay", "input_invalid");
/// `replay/recorder_stopped` (InvalidState): recording after a write
/// failure.
pub const RECORDER_STOPPED: EventId = EventId::new("replay", "recorder_stopped");
/// `replay/world_not_at_start` (InvalidState): a [`WorldTarget`](crate::replay::WorldTarget)'s world
/// is not at the tick the replay plays next.
pub const WORLD_NOT_AT_START: EventId = EventId::new("replay", "world_not_at_start");
/// `replay/diverged` (Failed): playback produced a state hash other than
/// the recorded one ([`Divergence::to_error`](crate::replay::Divergence::to_error)).
pub const DIVERGED: EventId = EventId::new("replay", "diverged");
/// `replay/nothing_verified` (Failed): a playback compared no recorded
/// state hash, so it proves nothing (a failure, not a vacuous success).
pub const NOTHING_VERIFIED: EventId = EventId::new("replay", "nothing_verified");
/// `replay/keyframe_damaged` (Corrupt): a keyframe whose encoded snapshot
/// fails its checks (its body checksum, its header, or decoding onto the world);
/// field `keyframe`, value its tick. The reader keeps the rest of the file
/// and a seek falls back to the keyframe before it (or tick 0).
pub const KEYFRAME_DAMAGED: EventId = EventId::new("replay", "keyframe_damaged");
/// `replay/incomplete` (InvalidArgument): `verify` was given the prefix
/// of a torn or damaged file; `verify_prefix` verifies one and says so.
pub const INCOMPLETE: EventId = EventId::new("replay", "incomplete");

/// `profiler/config_invalid`: a ring capacity or system-slot count outside
/// its range (InvalidArgument + rate-limited warn).
pub const PROFILER_CONFIG_INVALID: EventId = EventId::new("profiler", "config_invalid");

/// `workload/config_invalid`: a reference-workload config value outside
/// its range (InvalidArgument + rate-limited warn).
pub const WORKLOAD_CONFIG_INVALID: EventId = EventId::new("workload", "config_invalid");

/// `alloc/sim_tick_allocation` (Error): a completed tick allocated (debug
/// builds: the tick path allocates nothing); fields `tick`, `allocs`, `site`.
pub const SIM_TICK_ALLOCATION: EventId = EventId::new("alloc", "sim_tick_allocation");

/// `snapshot/unregistered_component`: an entity holds a component type that
/// is not registered on the world (`World::register_hashed_as`), so a
/// snapshot would lose it (InvalidArgument; field `component`, detail
/// naming an entity and the registered components beside it). Returned by
/// `World::check_snapshot_coverage` and by a save.
pub const SNAPSHOT_UNREGISTERED_COMPONENT: EventId =
    EventId::new("snapshot", "unregistered_component");
/// `snapshot/registry_changed`: a snapshot ring built before a component
/// type or part was registered was used to save or load (InvalidState).
pub const SNAPSHOT_REGISTRY_CHANGED: EventId = EventId::new("snapshot", "registry_changed");
/// `snapshot/slot_invalid`: a ring slot index out of range, or a load from
/// a slot that holds no snapshot (InvalidArgument; field `slot`).
pub const SNAPSHOT_SLOT_INVALID: EventId = EventId::new("snapshot", "slot_invalid");
/// `snapshot/ring_invalid`: a ring capacity outside `1..=MAX_RING_SLOTS`
/// (InvalidArgument; field `slots`).
pub const SNAPSHOT_RING_INVALID: EventId = EventId::new("snapshot", "ring_invalid");
/// `snapshot/part_invalid`: a snapshot part registered twice, or under a
/// name another part uses (InvalidArgument; field `part`).
pub const SNAPSHOT_PART_INVALID: EventId = EventId::new("snapshot", "part_invalid");
/// `snapshot/bytes_corrupt`: encoded snapshot bytes that are not a
/// snapshot of this format (bad magic, unknown version, checksum, length,
/// truncated or out-of-range values) (Corrupt; field `bytes`, detail the
/// byte offset and what was wrong). The world is untouched.
pub const SNAPSHOT_BYTES_CORRUPT: EventId = EventId::new("snapshot", "bytes_corrupt");
/// `snapshot/bytes_mismatch`: an intact encoded snapshot of another
/// build's world: a component type, resource or part by another name or
/// layout (InvalidArgument; field the kind, value the first differing
/// one, accepted this world's). The world is untouched.
pub const SNAPSHOT_BYTES_MISMATCH: EventId = EventId::new("snapshot", "bytes_mismatch");
/// `snapshot/unencodable`: an encoded snapshot was asked of a world with a
/// component type, hashed resource or part whose `StateHash` /
/// `SnapshotPart` impl has no byte codec (InvalidArgument; field the kind,
/// value its name). Nothing is written.
pub const SNAPSHOT_UNENCODABLE: EventId = EventId::new("snapshot", "unencodable");
/// `effects/config_invalid`: an effect log size out of range
/// (InvalidArgument; field `per_tick`, `window` or `outbox`).
pub const EFFECTS_CONFIG_INVALID: EventId = EventId::new("effects", "config_invalid");
/// `effects/already_enabled`: an effect type enabled twice on one world
/// (InvalidArgument; field `effect`, value the type).
pub const EFFECTS_ALREADY_ENABLED: EventId = EventId::new("effects", "already_enabled");
/// `effects/not_enabled`: a system emitted an effect of a type the world
/// did not enable (InvalidArgument; field `effect`, value the type).
pub const EFFECTS_NOT_ENABLED: EventId = EventId::new("effects", "not_enabled");
/// `effects/dropped` (Warn, rate-limited): an effect or an event dropped
/// for want of room (`limit`: `per_tick`, `outbox`), or the oldest
/// unconfirmed tick confirmed early (`window`); `dropped` the count.
pub const EFFECT_DROPPED: EventId = EventId::new("effects", "dropped");
