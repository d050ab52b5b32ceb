DROP TABLE pkgm_subscriptions;
