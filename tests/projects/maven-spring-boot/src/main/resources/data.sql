insert into article(title, slug) values ('Lorem', 'lorem');
insert into article(title, slug) values ('Ipsum', 'ipsum');
