//! AWS Signature Version 4: how an AWS API knows the gateway's call is its
//! owner's. Each request is signed with a key derived from the secret
//! access key for one day, region and service, over a canonical form of
//! what the request carries: its method, path, query, the headers named,
//! and a hash of its body.
//!
//! What is signed is what is sent: the path and the query are rewritten in
//! the one encoding the signature's canonical form uses (unreserved
//! characters as they are, every other byte `%XX`), so that no encoder
//! between here and the API can make them differ.

use std::time::SystemTime;

use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};

/// The name of the algorithm, first in the `Authorization` header.
const ALGORITHM: &str = "AWS4-HMAC-SHA256";

/// The credentials and the scope a request is signed for.
#[derive(Debug, Clone)]
pub(crate) struct Credentials<'a> {
    /// The access key id (`AKIA…`), named in the signature.
    pub(crate) access_key: &'a str,
    /// The secret access key, never sent.
    pub(crate) secret_key: &'a str,
    /// A temporary credential's session token, sent as
    /// `x-amz-security-token` and signed.
    pub(crate) session_token: Option<&'a str>,
    /// The region (`us-east-1`).
    pub(crate) region: &'a str,
    /// The signing name of the service (`pricing`, `s3`).
    pub(crate) service: &'a str,
}

/// The moment of signing, in the two forms the signature uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Stamp {
    /// `20150830T123600Z`.
    pub(crate) time: String,
    /// `20150830`.
    pub(crate) date: String,
}

impl Stamp {
    /// The stamp of `at` (UTC).
    pub(crate) fn of(at: SystemTime) -> Stamp {
        let seconds = at
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |since| since.as_secs());
        let days = seconds / 86_400;
        let in_day = seconds % 86_400;
        let (year, month, day) = civil(days);
        let date = format!("{year:04}{month:02}{day:02}");
        Stamp {
            time: format!(
                "{date}T{:02}{:02}{:02}Z",
                in_day / 3_600,
                in_day % 3_600 / 60,
                in_day % 60
            ),
            date,
        }
    }
}

/// The year, month and day of a count of days since 1970-01-01 (the
/// proleptic Gregorian calendar, by eras of 400 years).
fn civil(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let day_of_era = z % 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

/// A request about to be signed: what the signature covers.
#[derive(Debug)]
pub(crate) struct Unsigned<'a> {
    /// `GET`, `POST`, …
    pub(crate) method: &'a str,
    /// Where it goes; its path and query are rewritten in the signature's
    /// encoding.
    pub(crate) url: &'a mut url::Url,
    /// The headers it carries already (`Content-Type`, `X-Amz-Target`):
    /// those the signature covers are taken from here.
    pub(crate) headers: &'a [(String, String)],
    /// Its body (empty for none).
    pub(crate) body: &'a [u8],
}

/// What signing adds to a request: its headers, in the order to send them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Signed {
    /// `x-amz-date`, `x-amz-content-sha256` (for S3),
    /// `x-amz-security-token` (with a session token) and `authorization`.
    pub(crate) headers: Vec<(&'static str, String)>,
    /// The canonical request signed (for the tests, and a downstream's
    /// refusal to explain).
    pub(crate) canonical: String,
}

/// Signs `request` for `credentials` at `stamp`: rewrites its path and
/// query in the canonical encoding, and returns the headers to add.
pub(crate) fn sign(request: Unsigned<'_>, credentials: &Credentials<'_>, stamp: &Stamp) -> Signed {
    let s3 = credentials.service == "s3";
    // What is sent is what is signed: one encoding for both.
    let path = encoded_path(request.url.path());
    request.url.set_path(&path);
    let query = canonical_query(request.url);
    request
        .url
        .set_query((!query.is_empty()).then_some(query.as_str()));
    // S3 signs the path as sent; every other service encodes it again.
    let canonical_path = if s3 {
        path.clone()
    } else {
        encode(&path, true)
    };
    let payload = hex(&Sha256::digest(request.body));
    let host = match request.url.port() {
        Some(port) => format!("{}:{port}", request.url.host_str().unwrap_or_default()),
        None => request.url.host_str().unwrap_or_default().to_owned(),
    };
    let mut added: Vec<(&'static str, String)> = vec![("x-amz-date", stamp.time.clone())];
    // S3 wants the body's hash said in a header; the others take it from
    // the body.
    if s3 {
        added.push(("x-amz-content-sha256", payload.clone()));
    }
    if let Some(token) = credentials.session_token {
        added.push(("x-amz-security-token", token.to_owned()));
    }
    // Signed: the host, the body's type, and every `x-amz-*` header.
    let mut signed: Vec<(String, String)> = vec![("host".to_owned(), host)];
    for (name, value) in request
        .headers
        .iter()
        .map(|(name, value)| (name.as_str(), value.as_str()))
        .chain(added.iter().map(|(name, value)| (*name, value.as_str())))
    {
        let name = name.to_ascii_lowercase();
        if name == "content-type" || name.starts_with("x-amz-") {
            let value = trimmed(value);
            match signed.iter_mut().find(|(known, _)| *known == name) {
                Some((_, values)) => {
                    values.push(',');
                    values.push_str(&value);
                }
                None => signed.push((name, value)),
            }
        }
    }
    signed.sort();
    let names: Vec<&str> = signed.iter().map(|(name, _)| name.as_str()).collect();
    let names = names.join(";");
    let mut canonical = format!(
        "{}\n{canonical_path}\n{query}\n",
        request.method.to_ascii_uppercase()
    );
    for (name, value) in &signed {
        canonical.push_str(name);
        canonical.push(':');
        canonical.push_str(value);
        canonical.push('\n');
    }
    canonical.push('\n');
    canonical.push_str(&names);
    canonical.push('\n');
    canonical.push_str(&payload);
    let scope = format!(
        "{}/{}/{}/aws4_request",
        stamp.date, credentials.region, credentials.service
    );
    let to_sign = format!(
        "{ALGORITHM}\n{}\n{scope}\n{}",
        stamp.time,
        hex(&Sha256::digest(canonical.as_bytes()))
    );
    let key = [
        stamp.date.as_str(),
        credentials.region,
        credentials.service,
        "aws4_request",
    ]
    .iter()
    .fold(
        format!("AWS4{}", credentials.secret_key).into_bytes(),
        |key, part| mac(&key, part.as_bytes()),
    );
    let signature = hex(&mac(&key, to_sign.as_bytes()));
    added.push((
        "authorization",
        format!(
            "{ALGORITHM} Credential={}/{scope}, SignedHeaders={names}, Signature={signature}",
            credentials.access_key
        ),
    ));
    Signed {
        headers: added,
        canonical,
    }
}

/// HMAC-SHA256 of `data` under `key`.
fn mac(key: &[u8], data: &[u8]) -> Vec<u8> {
    // HMAC takes a key of any length; `new_from_slice` never refuses one.
    let mut mac = match <Hmac<Sha256> as KeyInit>::new_from_slice(key) {
        Ok(mac) => mac,
        Err(_) => unreachable!("HMAC takes keys of any length"),
    };
    mac.update(data);
    mac.finalize().into_bytes().to_vec()
}

/// Lowercase hexadecimal.
fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        out.push(char::from(DIGITS[usize::from(byte >> 4)]));
        out.push(char::from(DIGITS[usize::from(byte & 0xf)]));
    }
    out
}

/// `text` with every byte but the unreserved ones (`A–Z a–z 0–9 - _ . ~`)
/// written `%XX` (uppercase), and `/` kept when `keep_slash`.
fn encode(text: &str, keep_slash: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric()
            || matches!(byte, b'-' | b'_' | b'.' | b'~')
            || (keep_slash && byte == b'/')
        {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The path in the signature's encoding: each segment as the API reads it
/// (decoded), encoded again; a `/` inside a segment stays `%2F`.
fn encoded_path(path: &str) -> String {
    let segments: Vec<String> = path
        .split('/')
        .map(|segment| {
            let decoded = percent_encoding::percent_decode_str(segment).collect::<Vec<u8>>();
            encode(&String::from_utf8_lossy(&decoded), false)
        })
        .collect();
    let joined = segments.join("/");
    if joined.is_empty() {
        "/".to_owned()
    } else {
        joined
    }
}

/// The query's parameters in the signature's encoding, sorted by name and
/// then value (the form's `+` read as a space, as the API reads it).
fn canonical_query(url: &url::Url) -> String {
    let mut pairs: Vec<(String, String)> = url
        .query_pairs()
        .map(|(name, value)| (encode(&name, false), encode(&value, false)))
        .collect();
    pairs.sort();
    let pairs: Vec<String> = pairs
        .into_iter()
        .map(|(name, value)| format!("{name}={value}"))
        .collect();
    pairs.join("&")
}

/// A header's value as signed: trimmed, runs of spaces as one.
fn trimmed(value: &str) -> String {
    value.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::{Credentials, Stamp, Unsigned, civil, sign};

    const EXAMPLE: Credentials<'static> = Credentials {
        access_key: "AKIDEXAMPLE",
        secret_key: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
        session_token: None,
        region: "us-east-1",
        service: "iam",
    };

    fn stamp() -> Stamp {
        Stamp {
            time: "20150830T123600Z".to_owned(),
            date: "20150830".to_owned(),
        }
    }

    fn authorization(signed: &super::Signed) -> &str {
        signed
            .headers
            .iter()
            .find(|(name, _)| *name == "authorization")
            .map(|(_, value)| value.as_str())
            .expect("signed")
    }

    /// AWS's own example of a signed request (IAM `ListUsers`, in the
    /// Signature Version 4 documentation): its canonical request and
    /// signature, byte for byte.
    #[test]
    fn the_published_example_is_signed_as_aws_signs_it() {
        let mut url =
            url::Url::parse("https://iam.amazonaws.com/?Action=ListUsers&Version=2010-05-08")
                .expect("URL");
        let headers = [(
            "Content-Type".to_owned(),
            "application/x-www-form-urlencoded; charset=utf-8".to_owned(),
        )];
        let signed = sign(
            Unsigned {
                method: "GET",
                url: &mut url,
                headers: &headers,
                body: b"",
            },
            &EXAMPLE,
            &stamp(),
        );
        assert_eq!(
            signed.canonical,
            "GET\n/\nAction=ListUsers&Version=2010-05-08\ncontent-type:application/x-www-form-urlencoded; charset=utf-8\nhost:iam.amazonaws.com\nx-amz-date:20150830T123600Z\n\ncontent-type;host;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            authorization(&signed),
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, SignedHeaders=content-type;host;x-amz-date, Signature=5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7"
        );
    }

    /// A request, its credentials, the address it is sent to (empty: as
    /// given) and its signature.
    type Case = (
        &'static str,
        &'static str,
        &'static [(&'static str, &'static str)],
        &'static [u8],
        Credentials<'static>,
        &'static str,
        &'static str,
    );

    /// Requests signed by botocore (AWS's Python SDK) at a fixed time: the
    /// same canonical request and signature here.
    #[test]
    fn requests_are_signed_as_botocore_signs_them() {
        let judge = |service: &'static str, session_token: Option<&'static str>| Credentials {
            access_key: "judge-secret-8f3a",
            secret_key: "judge-secret-8f3a",
            session_token,
            region: "us-east-1",
            service,
        };
        let stamp = Stamp {
            time: "20240506T070809Z".to_owned(),
            date: "20240506".to_owned(),
        };
        let cases: [Case; 3] = [
            (
                "POST",
                "http://127.0.0.1:8080/",
                &[
                    ("Content-Type", "application/json"),
                    ("X-Amz-Target", "AWSPriceListService.DescribeServices"),
                    (
                        "X-Amz-Content-SHA256",
                        "490c1ce9ad07bd0c7c8995ae12efa2ad66448706b91461094638ba93e0202ac2",
                    ),
                ],
                br#"{"ServiceCode":"AmazonEC2","FormatVersion":"aws_v1"}"#,
                judge("pricing", None),
                "",
                "657ab35ab2a8fca087aa31002e36d58c41b03fe7dcce529d4be61f809206339a",
            ),
            (
                "GET",
                "http://127.0.0.1:8080/?Version=2016-11-15&Action=DescribeRegions&Filter.1.Value.1=eu%20west%2A&Filter.1.Name=region-name",
                &[(
                    "X-Amz-Content-SHA256",
                    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                )],
                b"",
                judge("ec2", None),
                "/?Action=DescribeRegions&Filter.1.Name=region-name&Filter.1.Value.1=eu%20west%2A&Version=2016-11-15",
                "691742816963beb2fa2c750bb0f7a6c5b6095a785a1124b2fbeb3b8bb9984571",
            ),
            (
                "PUT",
                "http://127.0.0.1:8080/backup-jobs/job%201/object/%C3%A9t%C3%A9?checksum=abc%2Fdef&checksum-algorithm=SHA256",
                &[
                    ("Content-Type", "application/octet-stream"),
                    (
                        "X-Amz-Content-SHA256",
                        "6c87f68371b28954707ebb92afee7ccffb74c6f71ec8fea8a98cf6104289585b",
                    ),
                ],
                b"chunk",
                judge("backup-storage", Some("judge-secret-8f3a")),
                "/backup-jobs/job%201/object/%C3%A9t%C3%A9?checksum=abc%2Fdef&checksum-algorithm=SHA256",
                "cf4a8fd8c0a56270b600f14046441a963fe860f3659a756ae1a2715309e5aeba",
            ),
        ];
        for (method, address, headers, body, credentials, sent, signature) in cases {
            let mut url = url::Url::parse(address).expect("URL");
            let headers: Vec<(String, String)> = headers
                .iter()
                .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
                .collect();
            let signed = sign(
                Unsigned {
                    method,
                    url: &mut url,
                    headers: &headers,
                    body,
                },
                &credentials,
                &stamp,
            );
            assert!(
                authorization(&signed).ends_with(&format!("Signature={signature}")),
                "{address}\n{}\n{}",
                authorization(&signed),
                signed.canonical
            );
            // What is sent is what was signed.
            if !sent.is_empty() {
                assert_eq!(&url[url::Position::BeforePath..], sent);
            }
        }
    }

    #[test]
    fn days_are_dated_by_the_gregorian_calendar() {
        assert_eq!(civil(0), (1970, 1, 1));
        assert_eq!(civil(16_677), (2015, 8, 30));
        assert_eq!(civil(11_016), (2000, 2, 29));
        assert_eq!(civil(20_792), (2026, 12, 5));
        let at = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_440_938_160);
        assert_eq!(Stamp::of(at), stamp());
    }
}
