//! What each part of the service is given from the state, in one place: domain functions take
//! the store and these named handles, never the whole [`crate::AppState`] (which only the routes, the
//! web pages, the admin command and `main` hold).

use crate::jobs::render::Renderer;
use crate::jobs::worker::Worker;
use crate::portal::Portal;
use crate::state::Services;
use crate::tasks::Tasks;
use crate::webhooks::Dispatcher;

impl Services {
    /// The renderer of clip generations and creative assets.
    pub fn renderer(&self) -> Renderer {
        Renderer {
            store: self.store.clone(),
            signals: self.signals.clone(),
            config: self.config.clone(),
            bucket: self.bucket.clone(),
        }
    }

    /// The processing worker.
    pub fn worker(&self) -> Worker {
        Worker {
            store: self.store.clone(),
            signals: self.signals.clone(),
            effects: self.effects.clone(),
            analysis: self.analysis.clone(),
            config: self.config.clone(),
        }
    }

    /// The portal's operations (smartlists, recipes).
    pub fn portal(&self) -> Portal {
        Portal {
            store: self.store.clone(),
            signals: self.signals.clone(),
            effects: self.effects.clone(),
            encoder: self.analysis.encoder.clone(),
            renderer: self.renderer(),
        }
    }

    /// The task operations.
    pub fn tasks(&self) -> Tasks<'_> {
        Tasks { store: &self.store, analysis: &self.analysis, effects: &self.effects }
    }

    /// The webhook dispatcher.
    pub fn dispatcher(&self) -> Dispatcher {
        Dispatcher {
            store: self.store.clone(),
            keys: self.keys.clone(),
            config: self.config.clone(),
            wake: self.effects.wake.webhooks.clone(),
        }
    }
}
