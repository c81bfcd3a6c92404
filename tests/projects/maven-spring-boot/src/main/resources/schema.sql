create table if not exists article (id bigint auto_increment primary key, title varchar(200) not null, slug varchar(200) not null);
