//! The store over TLS: `sslmode=require` (or libpq's `verify-full`) with
//! `sslrootcert` connects to a PostgreSQL speaking TLS with a certificate
//! from its own authority, and refuses a server it cannot verify.

use toolschema_store::Store;
use toolschema_test_support::postgres::Postgres;

#[test]
fn sslmode_require_verifies_the_server_against_sslrootcert() {
    let (postgres, ca) = Postgres::start_tls();
    let plain = postgres.database();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        // The authority's certificate trusted: TLS, verified.
        for mode in ["require", "verify-full"] {
            let url = format!("{plain}?sslmode={mode}&sslrootcert={}", ca.display());
            let store = Store::new(&url).expect("url");
            store.migrate().await.expect("migrates over TLS");
            assert_eq!(store.revision().await.expect("reads"), 0);
        }
        // The server speaks TLS on this connection: ask the server itself.
        let store = Store::new(&format!(
            "{plain}?sslmode=require&sslrootcert={}",
            ca.display()
        ))
        .expect("url");
        assert!(
            store.uses_tls().await.expect("asks"),
            "the connection is encrypted"
        );
        let plain_store = Store::new(&plain).expect("url");
        assert!(
            !plain_store.uses_tls().await.expect("asks"),
            "without sslmode, plain TCP"
        );

        // Without the authority: the server's certificate is not trusted.
        let untrusted = Store::new(&format!("{plain}?sslmode=require")).expect("url");
        let error = untrusted.revision().await.expect_err("an unknown issuer");
        let message = error.to_string();
        assert!(
            message.starts_with("cannot connect to the catalog store"),
            "{message}"
        );
        assert!(message.contains("UnknownIssuer"), "{message}");

        // A file that holds no certificate is refused when the store is made.
        let bad = std::env::temp_dir().join(format!("toolschema-not-a-ca-{}", std::process::id()));
        std::fs::write(&bad, "not a certificate").expect("write");
        let refused = Store::new(&format!(
            "{plain}?sslmode=require&sslrootcert={}",
            bad.display()
        ));
        let message = refused.map(drop).expect_err("no certificate").to_string();
        assert!(message.contains("sslrootcert"), "{message}");
        let _ = std::fs::remove_file(&bad);
    });
}
