//! Sign-in, the first user, API keys and OAuth clients, users, and webhooks with their delivery
//! log: the pages and their forms, one module each.

mod credentials;
mod sign_in;
mod users;
mod webhooks;

pub use credentials::*;
pub use sign_in::*;
pub use users::*;
pub use webhooks::*;
