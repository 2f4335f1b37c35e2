//! Tasks, as a domain: the interface's state machine of (item, product, version). A task's state
//! is that of its latest result (`ready` or `failed`), `pending` while none exists:
//!
//! | state | operation | outcome |
//! |---|---|---|
//! | no task, no result | [`Tasks::upsert`] | task created active, job queued: `pending` |
//! | no task, a result | [`Tasks::upsert`] | task created, the result reused: `ready` / `failed` |
//! | any | [`Tasks::upsert`] again | options, active flag and timestamp overwritten; reactivated |
//! | no active task, [`MAX_ACTIVE_VERSIONS`] other versions active | [`Tasks::upsert`] | [`TaskError::TooManyVersions`] |
//! | any | [`Tasks::deactivate`] | task deactivated; its queued job dropped; the state returned |
//! | `failed` | [`Tasks::reset`] | result dropped, job queued again |
//! | not `failed` | [`Tasks::reset`] | [`TaskError::NotFailed`] |
//! | no task, no result | [`Tasks::status`] / [`Tasks::deactivate`] / [`Tasks::reset`] | [`TaskError::NotFound`] |
//!
//! Errors are the domain's own; the routes turn them into HTTP answers.

use serde::Serialize;
use serde_json::Value;

use crate::changes::{Effects, Queued};
use crate::products::Product;
use crate::state::Analysis;
use crate::store::{JobState, OrgId, ResultStatus, Store, StoreError};

/// The state of a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum TaskState {
    /// Not computed yet.
    Pending,
    /// The latest result succeeded.
    Ready,
    /// The latest result failed.
    Failed,
}

impl TaskState {
    /// The name the interface gives it.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskState::Pending => "pending",
            TaskState::Ready => "ready",
            TaskState::Failed => "failed",
        }
    }
}

impl std::fmt::Display for TaskState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A task's state, and why it failed or what a pending task waits for (empty otherwise).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    /// The state.
    pub state: TaskState,
    /// Why it failed, or what it waits for.
    pub error: String,
}

/// A task of an item and its status.
#[derive(Debug, Clone)]
pub struct ItemTask {
    /// The product.
    pub product: String,
    /// The product version.
    pub version: String,
    /// Its status.
    pub status: Status,
}

/// Why a task operation failed.
#[derive(Debug, thiserror::Error)]
pub enum TaskError {
    /// Neither a task nor a result of (item, product, version) is known.
    #[error("no task and no result for item {id:?}, product {product:?}, version {version:?}")]
    NotFound {
        /// The item.
        id: String,
        /// The product.
        product: String,
        /// The version.
        version: String,
    },
    /// The item does not exist (or is deleted).
    #[error("item {0:?} not found")]
    ItemNotFound(String),
    /// Only a failed task can be reset.
    #[error("only a failed task can be reset; this one is {0}")]
    NotFailed(TaskState),
    /// The item has [`MAX_ACTIVE_VERSIONS`] other versions of the product active.
    #[error(
        "at most {limit} versions of a product may be active for one item; deactivate one (DELETE its task) \
         before adding another"
    )]
    TooManyVersions {
        /// The limit.
        limit: usize,
    },
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Most versions of one product that may be active for one item: each active task without a
/// result queues a job on the workers every organisation shares, and a version is any text. A
/// deactivated task frees its place.
pub const MAX_ACTIVE_VERSIONS: usize = 8;

fn not_found(id: &str, product: Product, version: &str) -> TaskError {
    TaskError::NotFound { id: id.into(), product: product.as_str().into(), version: version.into() }
}

/// The task operations over what they use: the store, the analyses in progress (a pending task
/// says how far its item's analysis has come) and the wake-ups of the workers.
#[derive(Debug, Clone, Copy)]
pub struct Tasks<'a> {
    /// The database.
    pub store: &'a Store,
    /// The analyses in progress.
    pub analysis: &'a Analysis,
    /// What queued work sets off.
    pub effects: &'a Effects,
}

impl Tasks<'_> {
    /// The status of (item, product, version).
    pub fn status(&self, org: OrgId, id: &str, product: Product, version: &str) -> Result<Status, TaskError> {
        self.status_of(org, id, product, version)?.ok_or_else(|| not_found(id, product, version))
    }

    /// Creates or updates the task of a live item with its options (a JSON object) and
    /// reactivates it; a job is queued unless a result exists. Answers the task's status. At most
    /// [`MAX_ACTIVE_VERSIONS`] versions of a product are active for an item.
    pub fn upsert(
        &self,
        org: OrgId,
        id: &str,
        product: Product,
        version: &str,
        options: &Value,
    ) -> Result<Status, TaskError> {
        match self.store.item(org, id)? {
            Some(item) if !item.deleted => {}
            _ => return Err(TaskError::ItemNotFound(id.to_string())),
        }
        if !self.store.upsert_task(org, id, product, version, &options.to_string(), MAX_ACTIVE_VERSIONS)? {
            return Err(TaskError::TooManyVersions { limit: MAX_ACTIVE_VERSIONS });
        }
        self.effects.queued(Queued::Tasks);
        self.status(org, id, product, version)
    }

    /// Deactivates a task (its queued job is dropped); answers its status. A result without a
    /// task answers its state; nothing at all is [`TaskError::NotFound`].
    pub fn deactivate(&self, org: OrgId, id: &str, product: Product, version: &str) -> Result<Status, TaskError> {
        let existed = self.store.deactivate_task(org, id, product, version)?;
        match self.status_of(org, id, product, version)? {
            Some(status) if existed || status.state != TaskState::Pending => Ok(status),
            _ => Err(not_found(id, product, version)),
        }
    }

    /// Resets a failed task: its result is dropped and its job queued again.
    pub fn reset(&self, org: OrgId, id: &str, product: Product, version: &str) -> Result<(), TaskError> {
        let current = self.status(org, id, product, version)?;
        if current.state != TaskState::Failed {
            return Err(TaskError::NotFailed(current.state));
        }
        self.store.reprocess(org, id, product, version)?;
        self.effects.queued(Queued::Tasks);
        Ok(())
    }

    /// Every task of an item, with its status.
    pub fn of_item(&self, org: OrgId, id: &str) -> Result<Vec<ItemTask>, TaskError> {
        if self.store.item(org, id)?.is_none() {
            return Err(TaskError::ItemNotFound(id.to_string()));
        }
        let mut out = Vec::new();
        for task in self.store.tasks(org, id)? {
            let status = self
                .status_of(org, id, task.product, &task.version)?
                .unwrap_or(Status { state: TaskState::Pending, error: String::new() });
            out.push(ItemTask { product: task.product.to_string(), version: task.version, status });
        }
        Ok(out)
    }

    /// The status of (item, product, version), or `None` when neither a task nor a result is known
    /// (`product` as stored: the tasks of an item are listed whatever they name).
    fn status_of(&self, org: OrgId, id: &str, product: Product, version: &str) -> Result<Option<Status>, StoreError> {
        let (store, analysis) = (self.store, self.analysis);
        if let Some(r) = store.result(org, id, product, Some(version))? {
            let state = match r.status {
                ResultStatus::Success => TaskState::Ready,
                ResultStatus::Failed => TaskState::Failed,
            };
            return Ok(Some(Status { state, error: r.error }));
        }
        let Some(task) = store.task(org, id, product, version)? else { return Ok(None) };
        let job = store.job_state(org, id, product, version)?;
        // Only a product that reads what speech recognition produces waits for it; the others run
        // from the fast pass as soon as a worker is free.
        let waits_for_speech = crate::products::needs_speech_stage(product);
        let error = match (job, analysis.progress(org, id)) {
            (Some(_), Some(done)) if waits_for_speech && store.signals_partial(org, id)? => {
                format!("transcribing speech (the fast channels are ready): the analysis is {:.0}% done", 100.0 * done)
            }
            (Some(_), Some(done)) => format!("analysing the media file: {:.0}% done", 100.0 * done),
            (Some(JobState::Waiting), None) => {
                "waiting for the item's signals (PUT /analysis/v1/item/{item_type}/{id})".to_string()
            }
            (None, _) if !task.active => "task is inactive".to_string(),
            _ => String::new(),
        };
        Ok(Some(Status { state: TaskState::Pending, error }))
    }
}
