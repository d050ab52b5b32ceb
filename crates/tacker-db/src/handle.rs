//! Async handles on the table modules: `db.vims().get(id, &keys).await` runs
//! `vims::get` on one of the pool's threads (see [`crate::Db::run`]), with copies of
//! what it borrows, so a caller neither clones before nor writes the closure.
//!
//! A handle lists the module's functions as they are declared, without the connection:
//! `fn get(id: Uuid, keys: &Keyring) -> Option<Vim>;`. An argument taken by reference
//! (`&T`) is copied with `ToOwned` (`&str` into a `String`, `&[T]` into a `Vec<T>`), an
//! `Option<&str>` into an `Option<String>`, an `Option<&T>` into an `Option<T>`; any
//! other is moved. Functions that take a
//! closure, or calls that must share one connection (a transaction across modules), are
//! written by hand beside the handle, or run with [`crate::Db::run`].

/// Declares `$Handle`, the async face of the table module it stands in, and
/// `Db::$accessor` answering it; each `fn` listed becomes a method of the same name.
macro_rules! handle {
    ($(#[$doc:meta])* $Handle:ident = $accessor:ident { $($fns:tt)* }) => {
        $(#[$doc])*
        #[derive(Clone, Copy)]
        pub struct $Handle<'a>(&'a crate::Db);

        impl crate::Db {
            $(#[$doc])*
            pub fn $accessor(&self) -> $Handle<'_> {
                $Handle(self)
            }
        }

        impl $Handle<'_> {
            crate::handle::handle!(@fns $($fns)*);
        }
    };
    (@fns) => {};
    (@fns fn $f:ident ( $($args:tt)* ) -> $ret:ty ; $($rest:tt)*) => {
        crate::handle::handle!(@args $f [$ret] [] [] [] $($args)*);
        crate::handle::handle!(@fns $($rest)*);
    };
    // An optional string slice: copied into an `Option<String>`.
    (@args $f:ident [$ret:ty] [$($sig:tt)*] [$($own:tt)*] [$($pass:tt)*]
        $p:ident : Option<&str> $(, $($rest:tt)*)?) => {
        crate::handle::handle!(@args $f [$ret]
            [$($sig)* $p: Option<&str>,]
            [$($own)* let $p = $p.map(str::to_owned);]
            [$($pass)* $p.as_deref(),]
            $($($rest)*)?);
    };
    // An optional borrowed value: copied, lent to the call.
    (@args $f:ident [$ret:ty] [$($sig:tt)*] [$($own:tt)*] [$($pass:tt)*]
        $p:ident : Option<& $t:ty> $(, $($rest:tt)*)?) => {
        crate::handle::handle!(@args $f [$ret]
            [$($sig)* $p: Option<&$t>,]
            [$($own)* let $p = $p.cloned();]
            [$($pass)* $p.as_ref(),]
            $($($rest)*)?);
    };
    // A borrowed value: copied with `ToOwned`, lent to the call.
    (@args $f:ident [$ret:ty] [$($sig:tt)*] [$($own:tt)*] [$($pass:tt)*]
        $p:ident : & $t:ty $(, $($rest:tt)*)?) => {
        crate::handle::handle!(@args $f [$ret]
            [$($sig)* $p: &$t,]
            [$($own)* let $p = ::std::borrow::ToOwned::to_owned($p);]
            [$($pass)* &$p,]
            $($($rest)*)?);
    };
    // An owned value: moved into the call.
    (@args $f:ident [$ret:ty] [$($sig:tt)*] [$($own:tt)*] [$($pass:tt)*]
        $p:ident : $t:ty $(, $($rest:tt)*)?) => {
        crate::handle::handle!(@args $f [$ret]
            [$($sig)* $p: $t,]
            [$($own)*]
            [$($pass)* $p,]
            $($($rest)*)?);
    };
    (@args $f:ident [$ret:ty] [$($sig:tt)*] [$($own:tt)*] [$($pass:tt)*]) => {
        #[doc = concat!("[`", stringify!($f), "`] on a pooled connection.")]
        pub async fn $f(self, $($sig)*) -> crate::Result<$ret> {
            $($own)*
            self.0.run(move |c| self::$f(c, $($pass)*)).await
        }
    };
}

pub(crate) use handle;
